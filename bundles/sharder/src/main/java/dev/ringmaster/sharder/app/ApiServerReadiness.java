package dev.ringmaster.sharder.app;

import dev.ringmaster.ops.ReadinessCheck;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Not ready while the API server cannot be reached: probes {@code GET /version} every few seconds
 * and answers from the last probe, so {@code /readyz} never waits on the network.
 */
@Component(service = ReadinessCheck.class)
public class ApiServerReadiness implements ReadinessCheck {

    static final Duration PERIOD = Duration.ofSeconds(5);

    private record Probe(Instant at, Optional<String> problem) {
    }

    @Reference
    private KubernetesClient client;

    private final Clock clock;
    private final AtomicReference<Probe> last;
    private ScheduledExecutorService prober;

    public ApiServerReadiness() {
        this(Clock.systemUTC());
    }

    ApiServerReadiness(Clock clock) {
        this.clock = clock;
        this.last = new AtomicReference<>(new Probe(clock.instant(), Optional.of("API server not probed yet")));
    }

    /** For tests and plain-Java use: probe this client. */
    ApiServerReadiness(KubernetesClient client, Clock clock) {
        this(clock);
        this.client = client;
    }

    @Activate
    void activate() {
        prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "apiserver-readiness");
            thread.setDaemon(true);
            return thread;
        });
        prober.scheduleWithFixedDelay(this::probe, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Deactivate
    void deactivate() {
        prober.shutdownNow();
    }

    void probe() {
        Optional<String> problem;
        try {
            client.getKubernetesVersion();
            problem = Optional.empty();
        } catch (RuntimeException e) {
            problem = Optional.of("API server " + client.getMasterUrl() + " unreachable: " + e.getMessage());
        }
        last.set(new Probe(clock.instant(), problem));
    }

    @Override
    public String name() {
        return "apiserver";
    }

    @Override
    public Optional<String> problem() {
        Probe probe = last.get();
        if (Duration.between(probe.at(), clock.instant()).compareTo(PERIOD.multipliedBy(3)) > 0) {
            return Optional.of("no answer from the API server since " + probe.at());
        }
        return probe.problem();
    }
}
