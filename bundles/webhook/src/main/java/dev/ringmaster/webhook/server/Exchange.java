package dev.ringmaster.webhook.server;

import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.webhook.dispatch.HandlerTable.Route;
import dev.ringmaster.webhook.review.BadReviewException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request: reads the body without blocking a thread while the client is slow, then parses,
 * dispatches and answers exactly once. The body must arrive within the read timeout (armed only when
 * the body is not there at once, which is the rare case) and within the size limit.
 */
final class Exchange implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    private static final HttpField CONTENT_TYPE_JSON = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/json");
    private static final HttpField CONNECTION_CLOSE = new PreEncodedHttpField(HttpHeader.CONNECTION, "close");
    private static final HttpField ALLOW_POST = new PreEncodedHttpField(HttpHeader.ALLOW, "POST");
    private static final int INITIAL_CAPACITY = 8 * 1024;

    private final Request request;
    private final Response response;
    private final Callback callback;
    private final String path;
    private final Route route;
    private final AdmissionReviewHandler server;
    /** Set by whoever answers: the reader, or the read timeout. */
    private final AtomicBoolean answered = new AtomicBoolean();

    private byte[] body;
    private int size;
    private Scheduler.Task readTimeout;

    Exchange(Request request, Response response, Callback callback, String path, Route route,
            AdmissionReviewHandler server) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.path = path;
        this.route = route;
        this.server = server;
    }

    /** Reads what has arrived; asks to be called again when more does. */
    @Override
    public void run() {
        while (!answered.get()) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                armReadTimeout();
                request.demand(this);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                Throwable failure = chunk.getFailure();
                if (failure instanceof TimeoutException) {
                    answerError(Outcome.TIMEOUT, null, "the request body did not arrive before the idle timeout");
                } else {
                    // the connection failed; the answer most likely goes nowhere, but the request is counted
                    answerError(Outcome.BAD_REQUEST, null, "the request body cannot be read: " + failure);
                }
                return;
            }
            boolean appended = append(chunk.getByteBuffer());
            boolean last = chunk.isLast();
            chunk.release();
            if (!appended) {
                answerError(Outcome.TOO_LARGE, null, server.tooLarge("more than " + server.maxRequestBytes() + " bytes"));
                return;
            }
            if (last) {
                cancelReadTimeout();
                dispatch();
                return;
            }
        }
    }

    private boolean append(ByteBuffer buffer) {
        int length = buffer.remaining();
        if (length == 0) {
            return true;
        }
        if ((long) size + length > server.maxRequestBytes()) {
            return false;
        }
        if (body == null) {
            long declared = request.getLength();
            body = new byte[declared >= 0 ? (int) declared : Math.max(length, INITIAL_CAPACITY)];
        }
        if (size + length > body.length) {
            body = Arrays.copyOf(body, (int) Math.min(server.maxRequestBytes(), Math.max(2L * body.length, size + length)));
        }
        buffer.get(body, size, length);
        size += length;
        return true;
    }

    private void armReadTimeout() {
        if (readTimeout == null) {
            readTimeout = server.scheduler().schedule(() -> answerError(Outcome.TIMEOUT, null,
                    "the request body did not arrive within " + server.readTimeoutMillis() + " ms"),
                    server.readTimeoutMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void cancelReadTimeout() {
        if (readTimeout != null) {
            readTimeout.cancel();
        }
    }

    private void dispatch() {
        AdmissionRequest admission;
        try {
            admission = server.codec().parse(body == null ? new byte[0] : body, size);
        } catch (BadReviewException e) {
            answerError(Outcome.BAD_REQUEST, e.uid().orElse(null), e.getMessage());
            return;
        }
        String uid = admission.uid();
        if (route == null) {
            answerError(Outcome.NOT_FOUND, uid, "no admission handler serves the path " + path);
            return;
        }
        AdmissionResponse answer;
        byte[] json;
        try {
            answer = route.handler().handle(path, admission);
            if (answer == null) {
                answerError(Outcome.ERROR, uid, "admission handler " + route.name() + " returned no response");
                return;
            }
            json = server.codec().response(uid, answer);
        } catch (RuntimeException | LinkageError e) {
            // LinkageError: a handler whose bundle is being uninstalled mid-call
            LOG.warn("admission handler {} failed on {} (uid {})", route.name(), path, uid, e);
            answerError(Outcome.ERROR, uid, "admission handler " + route.name() + " failed: " + e);
            return;
        }
        Outcome outcome = !answer.allowed() ? Outcome.DENIED
                : answer.patch().isEmpty() ? Outcome.ALLOWED : Outcome.PATCHED;
        answer(outcome, json);
    }

    /** Answers with an error body: an AdmissionReview echoing the uid when known, else a Status. */
    void answerError(Outcome outcome, String uid, String message) {
        if (!answered.compareAndSet(false, true)) {
            return;
        }
        cancelReadTimeout();
        LOG.debug("{} {} -> {}: {}", request.getMethod(), path, outcome.status(), message);
        write(outcome, server.codec().error(uid, outcome.status(), outcome.reason(), message));
    }

    private void answer(Outcome outcome, byte[] json) {
        if (answered.compareAndSet(false, true)) {
            write(outcome, json);
        }
    }

    private void write(Outcome outcome, byte[] json) {
        response.setStatus(outcome.status());
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(CONTENT_TYPE_JSON);
        headers.put(HttpHeader.CONTENT_LENGTH, json.length);
        if (outcome == Outcome.METHOD_NOT_ALLOWED) {
            headers.put(ALLOW_POST);
        }
        if (outcome == Outcome.TOO_LARGE || outcome == Outcome.TIMEOUT) {
            // the rest of the body is not worth reading, or not coming
            headers.put(CONNECTION_CLOSE);
        }
        server.metrics().record(route == null ? WebhookMetrics.NO_HANDLER : route.name(), outcome,
                System.nanoTime() - request.getHeadersNanoTime());
        response.write(true, ByteBuffer.wrap(json), callback);
    }
}
