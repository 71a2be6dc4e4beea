package dev.ringmaster.webhook.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The webhook's meters, recorded into a composite registry that the process-wide registry joins and
 * leaves as it comes and goes (the server records whether or not one is bound).
 *
 * <ul>
 * <li>{@value #REQUESTS}: timer with a percentile histogram, tags {@code handler} (the handler's name,
 * {@code none} when no handler was reached) and {@code outcome} ({@link Outcome}).</li>
 * <li>{@value #CERTIFICATE_EXPIRATION}: when the served certificate expires, seconds since the epoch
 * (NaN while none is served).</li>
 * <li>{@value #CERTIFICATE_RELOADS}: certificate file changes, tag {@code result} = accepted | rejected.</li>
 * </ul>
 */
public final class WebhookMetrics {

    public static final String REQUESTS = "ringmaster.webhook.requests";
    public static final String CERTIFICATE_EXPIRATION = "ringmaster.webhook.certificate.expiration";
    public static final String CERTIFICATE_RELOADS = "ringmaster.webhook.certificate.reloads";
    /** The {@code handler} tag of requests that reached no handler. */
    public static final String NO_HANDLER = "none";

    private static final Outcome[] OUTCOMES = Outcome.values();

    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    /**
     * Per handler name, a timer per outcome (by ordinal), so a request finds its timer without building
     * tags. The names are those of registered handlers and {@value #NO_HANDLER}: bounded.
     */
    private final ConcurrentMap<String, Timer[]> timers = new ConcurrentHashMap<>();
    private final Counter accepted;
    private final Counter rejected;
    private volatile double expirationSeconds = Double.NaN;

    public WebhookMetrics() {
        Gauge.builder(CERTIFICATE_EXPIRATION, this, metrics -> metrics.expirationSeconds)
                .description("When the served webhook certificate expires (seconds since the epoch)")
                .baseUnit("seconds")
                .register(registry);
        accepted = reloads("accepted");
        rejected = reloads("rejected");
    }

    /** Starts recording into {@code target} too. */
    public void add(MeterRegistry target) {
        registry.add(target);
    }

    public void remove(MeterRegistry target) {
        registry.remove(target);
    }

    /** The composite itself, for tests. */
    MeterRegistry registry() {
        return registry;
    }

    public void record(String handler, Outcome outcome, long nanos) {
        Timer[] byOutcome = timers.computeIfAbsent(handler, name -> new Timer[OUTCOMES.length]);
        Timer timer = byOutcome[outcome.ordinal()];
        if (timer == null) {
            // a race registers the same meter twice, which the registry answers with the one meter
            timer = timer(handler, outcome);
            byOutcome[outcome.ordinal()] = timer;
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The certificate now served; null for none. */
    public void serving(Instant notAfter) {
        expirationSeconds = notAfter == null ? Double.NaN : notAfter.getEpochSecond();
    }

    public void certificateChange(boolean wasAccepted) {
        (wasAccepted ? accepted : rejected).increment();
    }

    /** Created on first use, so only outcomes that happen have series. */
    private Timer timer(String handler, Outcome outcome) {
        return Timer.builder(REQUESTS)
                .description("AdmissionReview requests, from their head arriving to the answer being handed to Jetty")
                .tag("handler", handler)
                .tag("outcome", outcome.tag())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(10))
                .maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry);
    }

    private Counter reloads(String result) {
        return Counter.builder(CERTIFICATE_RELOADS)
                .description("Changes of the webhook's certificate files, by whether the new pair was taken")
                .tag("result", result)
                .register(registry);
    }
}
