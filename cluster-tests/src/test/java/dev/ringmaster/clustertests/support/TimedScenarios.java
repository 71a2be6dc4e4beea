package dev.ringmaster.clustertests.support;

import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Records how long each scenario (test method) took in {@link NodeCluster}'s summary of phases. */
public final class TimedScenarios implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TimedScenarios.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put("started", System.nanoTime());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Long started = context.getStore(NAMESPACE).get("started", Long.class);
        if (started != null) {
            NodeCluster.record("scenario " + context.getRequiredTestClass().getSimpleName() + "."
                    + context.getRequiredTestMethod().getName() + (context.getExecutionException().isPresent() ? " (failed)" : ""),
                    Duration.ofNanos(System.nanoTime() - started));
        }
    }
}
