package dev.ringmaster.plugins.labelguard;

import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import java.util.Set;
import java.util.function.Function;

/**
 * The label guard for tests outside this bundle (system-tests, through this module's test jar), which
 * cannot reach the package-private {@link LabelGuard}: its decision under a policy, as
 * {@link LabelGuardComponent} configures it.
 */
public final class LabelGuardFixture {

    private LabelGuardFixture() {
    }

    /**
     * The guard's review under a policy.
     *
     * @param trustedUsers               user names whose requests may change any ring label
     * @param trustedGroups              groups whose members may
     * @param allowDrainAcknowledgements whether anyone may acknowledge a drain
     */
    public static Function<AdmissionRequest, AdmissionResponse> guard(Set<String> trustedUsers, Set<String> trustedGroups,
            boolean allowDrainAcknowledgements) {
        LabelGuard guard = new LabelGuard(new LabelGuard.Policy(trustedUsers, trustedGroups, allowDrainAcknowledgements),
                LabelGuardComponent.PID);
        return guard::review;
    }
}
