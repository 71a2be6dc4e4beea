package dev.ringmaster.clustertests.support;

/**
 * This machine cannot run the tier (not root, no {@code ../shared/k8s}, no buildah, the node never
 * Ready, …): an environment problem, so the scenarios are skipped with a banner, or fail when
 * {@code CI=true}. Anything else that goes wrong while provisioning (an image that does not build, an
 * install that does not roll out) is a failure of what is tested and fails the scenarios everywhere.
 */
public final class Unavailable extends Exception {

    private static final long serialVersionUID = 1L;

    public Unavailable(String reason) {
        super(reason);
    }
}
