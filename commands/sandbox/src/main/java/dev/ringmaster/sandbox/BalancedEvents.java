package dev.ringmaster.sandbox;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The {@code balance} scenario's view of the leader's load steps: the {@code Balanced} Events about the
 * ring ({@code events.k8s.io/v1}, in {@code default}, where the Events of cluster-scoped objects go),
 * polled; each new one's note is handed on once, oldest first. Thread-safe.
 */
final class BalancedEvents {

    /** The reason of the leader's Event on the ring after a load step that moved ranges. */
    static final String REASON = "Balanced";
    /** Where the Events of a cluster-scoped object (both ring kinds) are recorded. */
    static final String NAMESPACE = "default";

    private final KubernetesClient client;
    private final String ring;
    private final Consumer<String> onNew;
    private final Set<String> seen = new HashSet<>();
    private final List<String> notes = new ArrayList<>();

    /** @param onNew receives the note of each new Event */
    BalancedEvents(KubernetesClient client, String ring, Consumer<String> onNew) {
        this.client = client;
        this.ring = ring;
        this.onNew = onNew;
    }

    /** Lists the Events and hands on the notes of those not seen before. */
    void poll() {
        List<Event> events = client.events().v1().events().inNamespace(NAMESPACE).list().getItems();
        List<String> fresh;
        synchronized (this) {
            fresh = newNotes(events, ring, seen);
            notes.addAll(fresh);
        }
        fresh.forEach(onNew);
    }

    /** The notes of every Event seen so far, oldest first. */
    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    /**
     * The notes of {@code Balanced} Events about {@code ring} among {@code events} whose names are not in
     * {@code seen}, oldest first (by event time, then name); their names are added to {@code seen}.
     */
    static List<String> newNotes(Collection<Event> events, String ring, Set<String> seen) {
        return events.stream()
                .filter(event -> REASON.equals(event.getReason()))
                .filter(event -> event.getRegarding() != null && ring.equals(event.getRegarding().getName()))
                .filter(event -> seen.add(event.getMetadata().getName()))
                .sorted(Comparator.comparing((Event event) -> event.getEventTime() == null ? ""
                        : Objects.toString(event.getEventTime().getTime(), "")).thenComparing(e -> e.getMetadata().getName()))
                .map(event -> Objects.toString(event.getNote(), ""))
                .toList();
    }
}
