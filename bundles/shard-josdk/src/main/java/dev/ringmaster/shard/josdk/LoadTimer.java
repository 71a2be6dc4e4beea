package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.LoadMeter;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Times the user's reconciles into the shard's {@link LoadMeter} ({@link #time}, called by
 * {@link ShardGatedReconciler}), with the queue wait JOSDK lets us see. JOSDK has no hook for when an event queued
 * an object; its {@link Metrics} tell only when it submitted the object's execution to its executor, and the wait
 * counted is from there to the start of the user's code: the time JOSDK holds an event back while the object
 * executes, or a retry or reschedule waits, is not in it. A {@link Metrics}, as {@link ExecutionGate}.
 */
final class LoadTimer implements Metrics {

    private final LoadMeter meter;
    /** When each object's execution was submitted, by {@link ExecutionGate#key}, until it finished. */
    private final Map<String, Long> submitted = new ConcurrentHashMap<>();

    LoadTimer(LoadMeter meter) {
        this.meter = meter;
    }

    /** Calls the user's code for {@code resource}: its wait since submission and its duration go to the meter. */
    <T> T time(HasMetadata resource, Callable<T> user) throws Exception {
        long started = meter.now();
        Long since = submitted.get(ExecutionGate.key(resource));
        if (since != null) {
            meter.waited(started - since);
        }
        try {
            return user.call();
        } finally {
            meter.reconciled(resource, meter.now() - started);
        }
    }

    @Override
    public void reconciliationSubmitted(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        if (resource != null) {
            submitted.putIfAbsent(ExecutionGate.key(resource), meter.now());
        }
    }

    @Override
    public void reconciliationFinished(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        if (resource != null) {
            submitted.remove(ExecutionGate.key(resource));
        }
    }
}
