package dev.ringmaster.delivery;

import java.util.Optional;
import java.util.Set;

/**
 * What a delivered jar must pass before it is installed (docs/operating.md, "Who may change code"):
 * its SHA-256 in {@code allowedSha256}, its signature by a trusted signer ({@link SignedJars}), both,
 * or nothing. Configured from the image's {@code etc/} only.
 */
@FunctionalInterface
interface JarCheck {

    /** Every jar passes: neither an allow-list nor trusted certificates are configured. */
    JarCheck NONE = jar -> Optional.empty();

    /** Why the jar may not run, in one line; empty if it may. */
    Optional<String> refusal(Delivery.Jar jar);

    /** This check, then (if it passes) {@code next}: a jar must pass both. */
    default JarCheck and(JarCheck next) {
        return jar -> refusal(jar).or(() -> next.refusal(jar));
    }

    /** Only jars whose SHA-256 (lower-case hex) is in {@code allowed}; every jar if it is empty. */
    static JarCheck allowedSha256(Set<String> allowed) {
        if (allowed.isEmpty()) {
            return NONE;
        }
        Set<String> digests = Set.copyOf(allowed);
        return jar -> digests.contains(jar.sha256()) ? Optional.empty()
                : Optional.of("sha256 " + jar.sha256() + " is not in allowedSha256 of the configuration "
                        + DeliveryComponent.PID);
    }
}
