package dev.ringmaster.ops;

import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * One condition the process must meet to be ready for work, registered as an OSGi service (typically
 * by a DS component). {@code GET /readyz} answers 200 when no registered check reports a problem and
 * 503, with one line {@code name: problem} per failing check, otherwise. Checks come and go with the
 * bundles that register them; with no check registered the process is ready.
 *
 * <p>Implementations are called on HTTP threads, concurrently, on every probe (Kubernetes probes
 * every few seconds): answer from state the component already holds — never call a remote system or
 * block from {@link #problem()}. A check that throws counts as failing, with the exception as its
 * problem.
 */
@ConsumerType
public interface ReadinessCheck {

    /** A short, stable identifier, e.g. {@code sharder}, shown before the problem; one line. */
    String name();

    /**
     * Why the process is not ready, e.g. {@code API server unreachable}; empty when this check is
     * satisfied. One line, meant for an operator reading {@code /readyz}.
     */
    Optional<String> problem();
}
