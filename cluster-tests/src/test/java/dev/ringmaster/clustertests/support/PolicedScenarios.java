package dev.ringmaster.clustertests.support;

import dev.ringmaster.testing.rings.PolicyDenials;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a scenario during which the install's admission policy ({@code manifests/admission-policies}, which
 * matches the sharder's requests only) denied a request, as the API server counts its denials: every
 * scenario of the tier runs with the sharder held to its own writes, and none of its writes may be refused.
 * A scenario that provokes denials itself says how many ({@link Denies}).
 */
public final class PolicedScenarios implements BeforeEachCallback, AfterEachCallback {

    /** The policy of {@code manifests/admission-policies}. */
    public static final String POLICY = "ringmaster-sharder";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PolicedScenarios.class);

    /** The scenario makes this many requests as the sharder that the policy must deny. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface Denies {
        int value();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put("denials", PolicyDenials.count(NodeCluster.get().admin(), POLICY));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Long before = context.getStore(NAMESPACE).get("denials", Long.class);
        if (before == null || context.getExecutionException().isPresent()) {
            return;
        }
        Denies provoked = context.getRequiredTestMethod().getAnnotation(Denies.class);
        long expected = provoked == null ? 0 : provoked.value();
        long denied = PolicyDenials.count(NodeCluster.get().admin(), POLICY) - before;
        if (denied != expected) {
            throw new AssertionError("the admission policy " + POLICY + " denied " + denied + " requests of the sharder"
                    + " during the scenario, " + expected + " expected; the sharder's logs say what they were:\n"
                    + new Sharder(NodeCluster.get()).diagnostics());
        }
    }
}
