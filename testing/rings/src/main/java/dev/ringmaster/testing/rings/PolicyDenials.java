package dev.ringmaster.testing.rings;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;

/**
 * How many requests a ValidatingAdmissionPolicy denied, as the API server counts them in its own metrics
 * ({@code apiserver_validating_admission_policy_check_total} with {@code enforcement_action="deny"}): the
 * real tiers' way to tell that the sharder was refused nothing under {@code manifests/admission-policies}.
 */
public final class PolicyDenials {

    private static final String METRIC = "apiserver_validating_admission_policy_check_total{";

    private PolicyDenials() {
    }

    /** The denials of {@code policy} since the API server started, over all its bindings; 0 if none yet. */
    public static long count(KubernetesClient admin, String policy) {
        return Arrays.stream(admin.raw("/metrics").split("\n"))
                .filter(line -> line.startsWith(METRIC))
                .filter(line -> line.contains("policy=\"" + policy + "\"") && line.contains("enforcement_action=\"deny\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
