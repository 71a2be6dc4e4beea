package dev.ringmaster.testing.mockapiserver;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Keeps the mock server's single Vert.x event loop from freezing when a client closes a watch.
 *
 * <p>fabric8's mock server (7.8.0) handles a watch's close or failure on the event loop by shutting
 * the watch's sender down and waiting for it (up to a minute). If the sender is writing an event to
 * that watch at that moment, its write needs the event loop, which is waiting for the sender: both
 * stand still until the write times out after 30 s, and with them every request to the server. In the
 * sandbox this happens when the sharder restarts (a configuration change closes its watches while the
 * shards renew their Leases) on a busy machine: for 30 s no shard can renew, so afterwards the
 * sharder finds every Lease overdue, declares every shard dead and moves everything. In tests it
 * happens when a replica closes while the leader writes: the server cannot be shut down in time.
 *
 * <p>This dispatcher answers as the mock's own does, but hands the closing and failure callbacks of
 * every WebSocket listener (the watches) to a thread of its own, so the event loop goes on, the write
 * completes (or fails on the closed socket) and the sender stops.
 */
final class WatchCloseOffLoop extends Dispatcher {

    private final Dispatcher delegate;
    private final ExecutorService closer = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "api-server-watch-close");
        thread.setDaemon(true);
        return thread;
    });

    WatchCloseOffLoop(Dispatcher delegate) {
        this.delegate = delegate;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        MockResponse response = delegate.dispatch(request);
        WebSocketListener listener = response == null ? null : response.getWebSocketListener();
        if (listener != null && !(listener instanceof OffLoop)) {
            response.withWebSocketUpgrade(new OffLoop(listener, closer));
        }
        return response;
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
        closer.shutdownNow();
    }

    @Override
    public void releaseResources() {
        delegate.releaseResources();
    }

    /** The listener, with {@code onClosed} and {@code onFailure} run off the event loop. */
    private static final class OffLoop extends WebSocketListener {

        private final WebSocketListener listener;
        private final ExecutorService closer;

        OffLoop(WebSocketListener listener, ExecutorService closer) {
            this.listener = listener;
            this.closer = closer;
        }

        @Override
        public void onBeforeAccept(WebSocket webSocket, Response response) {
            listener.onBeforeAccept(webSocket, response);
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            listener.onOpen(webSocket, response);
        }

        @Override
        public void onMessage(WebSocket webSocket, String text) {
            listener.onMessage(webSocket, text);
        }

        @Override
        public void onMessage(WebSocket webSocket, ByteString bytes) {
            listener.onMessage(webSocket, bytes);
        }

        @Override
        public void onMessage(WebSocket webSocket, byte[] bytes) {
            listener.onMessage(webSocket, bytes);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            listener.onClosing(webSocket, code, reason);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            offLoop(() -> listener.onClosed(webSocket, code, reason));
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
            offLoop(() -> listener.onFailure(webSocket, failure, response));
        }

        private void offLoop(Runnable callback) {
            try {
                closer.execute(callback);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                callback.run(); // the server is shutting down
            }
        }
    }
}
