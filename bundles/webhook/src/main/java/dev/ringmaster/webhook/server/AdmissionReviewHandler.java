package dev.ringmaster.webhook.server;

import dev.ringmaster.webhook.dispatch.HandlerTable;
import dev.ringmaster.webhook.dispatch.HandlerTable.Route;
import dev.ringmaster.webhook.review.AdmissionReviewCodec;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The Jetty core handler of every request: checks method, content type and declared length at once,
 * then reads the body asynchronously ({@link Exchange}) and answers. A request is routed when its
 * head arrives, by the handler table current at that moment.
 */
final class AdmissionReviewHandler extends Handler.Abstract {

    private static final String JSON = "application/json";

    private final Supplier<HandlerTable> handlers;
    private final AdmissionReviewCodec codec;
    private final WebhookMetrics metrics;
    private final Scheduler scheduler;
    private final int maxRequestBytes;
    private final long readTimeoutMillis;

    AdmissionReviewHandler(Supplier<HandlerTable> handlers, AdmissionReviewCodec codec, WebhookMetrics metrics,
            Scheduler scheduler, WebhookSettings settings) {
        this.handlers = handlers;
        this.codec = codec;
        this.metrics = metrics;
        this.scheduler = scheduler;
        this.maxRequestBytes = settings.maxRequestBytes();
        this.readTimeoutMillis = settings.readTimeout().toMillis();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        Route route = handlers.get().routeFor(path == null ? "" : path).orElse(null);
        Exchange exchange = new Exchange(request, response, callback, path, route, this);
        if (!HttpMethod.POST.is(request.getMethod())) {
            exchange.answerError(Outcome.METHOD_NOT_ALLOWED, null, "method " + request.getMethod()
                    + " is not allowed; AdmissionReviews are POSTed");
        } else if (!isJson(request.getHeaders().get("Content-Type"))) {
            exchange.answerError(Outcome.UNSUPPORTED_MEDIA_TYPE, null, "content type "
                    + request.getHeaders().get("Content-Type") + " is not supported; send " + JSON);
        } else if (request.getLength() > maxRequestBytes) {
            exchange.answerError(Outcome.TOO_LARGE, null, tooLarge(request.getLength() + " bytes"));
        } else {
            exchange.run();
        }
        return true;
    }

    /** {@code application/json}, with or without parameters such as a charset. */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String type = (parameters < 0 ? contentType : contentType.substring(0, parameters)).trim();
        return type.equalsIgnoreCase(JSON);
    }

    String tooLarge(String size) {
        return "the request body (" + size + ") exceeds the limit of " + maxRequestBytes + " bytes";
    }

    AdmissionReviewCodec codec() {
        return codec;
    }

    WebhookMetrics metrics() {
        return metrics;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    int maxRequestBytes() {
        return maxRequestBytes;
    }

    long readTimeoutMillis() {
        return readTimeoutMillis;
    }
}
