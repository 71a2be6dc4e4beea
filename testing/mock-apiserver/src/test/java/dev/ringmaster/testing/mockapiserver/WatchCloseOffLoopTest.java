package dev.ringmaster.testing.mockapiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WatchCloseOffLoopTest {

    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(2);
    private final List<String> calls = new ArrayList<>();

    /** Like the mock's watch listener: closing waits for something only the calling thread could do. */
    private final WebSocketListener watch = new WebSocketListener() {
        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            record("open on " + Thread.currentThread().getName());
        }

        @Override
        public void onMessage(WebSocket webSocket, String text) {
            record("message " + text);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            record("closing " + code);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            await();
            record("closed " + code + " on " + Thread.currentThread().getName());
            closed.countDown();
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
            await();
            record("failed " + failure.getMessage() + " on " + Thread.currentThread().getName());
            closed.countDown();
        }
    };

    @Test
    void closingAndFailureRunOffTheCallingThreadEverythingElseOnIt() throws Exception {
        WatchCloseOffLoop dispatcher = new WatchCloseOffLoop(answering(new MockResponse().withWebSocketUpgrade(watch)));
        WebSocketListener listener = dispatcher.dispatch(null).getWebSocketListener();
        String loop = Thread.currentThread().getName();

        listener.onOpen(null, null);
        listener.onMessage(null, "event");
        listener.onClosing(null, 1000, "bye");
        listener.onClosed(null, 1000, "bye");                        // returns although the watch still waits
        listener.onFailure(null, new IllegalStateException("reset"), null);
        synchronized (calls) {
            assertThat(calls).containsExactly("open on " + loop, "message event", "closing 1000");
        }

        release.countDown();
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        synchronized (calls) {
            assertThat(calls).contains("closed 1000 on api-server-watch-close", "failed reset on api-server-watch-close");
        }
        dispatcher.shutdown();
    }

    @Test
    void answersWithoutWebSocketAreLeftAlone() {
        MockResponse plain = new MockResponse().setResponseCode(200);
        WatchCloseOffLoop dispatcher = new WatchCloseOffLoop(answering(plain));

        assertThat(dispatcher.dispatch(null)).isSameAs(plain);
        assertThat(plain.getWebSocketListener()).isNull();
        dispatcher.shutdown();
    }

    @Test
    void aListenerIsWrappedOnceEvenWhenTheSameAnswerIsGivenAgain() {
        MockResponse upgrade = new MockResponse().withWebSocketUpgrade(watch);
        WatchCloseOffLoop dispatcher = new WatchCloseOffLoop(answering(upgrade));

        WebSocketListener first = dispatcher.dispatch(null).getWebSocketListener();
        WebSocketListener second = dispatcher.dispatch(null).getWebSocketListener();

        assertThat(first).isNotSameAs(watch).isSameAs(second);
        dispatcher.shutdown();
    }

    private static Dispatcher answering(MockResponse response) {
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return response;
            }
        };
    }

    private void record(String call) {
        synchronized (calls) {
            calls.add(call);
        }
    }

    private void await() {
        try {
            release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
