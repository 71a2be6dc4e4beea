package dev.ringmaster.itests.support;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A steady stream of AdmissionReviews (CREATE of a ConfigMap) to one webhook path, as the API server
 * sends them while users create objects; records every answer that is not a 200 allowing the
 * request, so a test can prove the webhook kept answering through whatever it did meanwhile, and which
 * answers assigned no shard (no patch), so it can prove the webhook kept assigning. (Not a
 * load generator: the webhook benchmark's is {@code bench}'s {@code dev.ringmaster.bench.webhook.AdmissionLoad}.)
 */
public final class AdmissionStream implements AutoCloseable {

    private static final long PAUSE_MILLIS = 25;

    private final HttpClient client;
    private final int port;
    private final String path;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger answered = new AtomicInteger();
    private final List<String> failures = new ArrayList<>();
    /** The numbers of the requests answered without a patch, in order. */
    private final List<Integer> unassigned = new ArrayList<>();
    private final Thread sender;

    private AdmissionStream(HttpClient client, int port, String path) {
        this.client = client;
        this.port = port;
        this.path = path;
        this.sender = new Thread(this::send, "itests-admission-stream");
        sender.setDaemon(true);
    }

    public static AdmissionStream start(HttpClient client, int port, String path) {
        AdmissionStream stream = new AdmissionStream(client, port, path);
        stream.sender.start();
        return stream;
    }

    private void send() {
        for (int i = 0; running.get(); i++) {
            String uid = "load-" + i;
            try {
                HttpResponse<String> response = WebhookClient.post(client, port, path,
                        WebhookClient.createConfigMap(uid, "default", uid));
                if (response.statusCode() != 200 || !response.body().contains("\"allowed\":true")) {
                    failed(uid + ": HTTP " + response.statusCode() + " " + response.body());
                } else if (!response.body().contains("\"patch\"")) {
                    unassigned(i);
                }
                answered.incrementAndGet();
                Thread.sleep(PAUSE_MILLIS);
            } catch (IOException e) {
                failed(uid + ": " + e);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void failed(String what) {
        failures.add(what);
    }

    private synchronized void unassigned(int request) {
        unassigned.add(request);
    }

    /** The requests from the {@code first}-th on (counting from 0, as {@link #answered()} does) that were allowed without a shard label. */
    public synchronized List<String> unassignedFrom(int first) {
        return unassigned.stream().filter(request -> request >= first).map(request -> "load-" + request).toList();
    }

    public int answered() {
        return answered.get();
    }

    public synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    /** Stops sending and waits for the request in flight. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        sender.join(15_000);
    }
}
