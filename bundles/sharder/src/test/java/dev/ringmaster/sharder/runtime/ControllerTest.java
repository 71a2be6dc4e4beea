package dev.ringmaster.sharder.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ControllerTest {

    private static final Backoff FAST = new Backoff(Duration.ofMillis(5), Duration.ofMillis(20));

    @Test
    void keysQueuedBeforeStartAreReconciledOnce() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Controller<String> controller = new Controller<>("test", key -> {
            seen.add(key);
            return Reconciler.Result.done();
        }, 2, FAST)) {
            controller.enqueue("a");
            controller.enqueue("a");
            controller.enqueue("b");
            controller.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> controller.pending() == 0 && seen.size() == 2);
            assertThat(seen).containsExactlyInAnyOrder("a", "b");
        }
    }

    /** A reconciliation blocked on an API server that never answers must not hold a shutdown up. */
    @Test
    void stoppingInterruptsAReconciliationStillRunningAfterTheGrace() throws InterruptedException {
        CountDownLatch interrupted = new CountDownLatch(1);
        Controller<String> controller = reconcilingOneKey("stuck", key -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            return Reconciler.Result.done();
        });

        controller.stop();
        assertThat(controller.awaitStopped(Duration.ofMillis(50))).as("finished on its own").isFalse();
        assertThat(interrupted.await(5, TimeUnit.SECONDS)).as("the blocked reconciliation was interrupted").isTrue();
    }

    @Test
    void stoppingWaitsForAReconciliationThatFinishesWithinTheGrace() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Controller<String> controller = reconcilingOneKey("quick", key -> {
            release.await(5, TimeUnit.SECONDS);
            return Reconciler.Result.done();
        });

        controller.stop();
        release.countDown();
        assertThat(controller.awaitStopped(Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void aKeyIsNeverReconciledConcurrentlyAndAddsDuringAPassCauseOneMore() throws InterruptedException {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        CountDownLatch firstPassStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Controller<String> controller = new Controller<>("test", key -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            firstPassStarted.countDown();
            if (passes.incrementAndGet() == 1) {
                release.await(5, TimeUnit.SECONDS);
            }
            running.decrementAndGet();
            return Reconciler.Result.done();
        }, 4, FAST)) {
            controller.start();
            controller.enqueue("k");
            assertThat(firstPassStarted.await(5, TimeUnit.SECONDS)).isTrue();
            controller.enqueue("k");
            controller.enqueue("k");
            release.countDown();
            await().atMost(Duration.ofSeconds(5)).until(() -> controller.pending() == 0 && passes.get() == 2);
            assertThat(maxRunning.get()).isEqualTo(1);
        }
    }

    @Test
    void failuresAreRetriedWithBackoffUntilTheySucceed() {
        AtomicInteger attempts = new AtomicInteger();
        try (Controller<String> controller = new Controller<>("test", key -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("conflict");
            }
            return Reconciler.Result.done();
        }, 1, FAST)) {
            controller.start();
            controller.enqueue("k");
            await().atMost(Duration.ofSeconds(5)).until(() -> attempts.get() == 3 && controller.pending() == 0);
        }
    }

    @Test
    void requeueAfterRunsTheKeyAgain() {
        AtomicInteger passes = new AtomicInteger();
        try (Controller<String> controller = new Controller<>("test", key -> passes.incrementAndGet() < 3
                ? Reconciler.Result.requeueAfter(Duration.ofMillis(10))
                : Reconciler.Result.done(), 1, FAST)) {
            controller.start();
            controller.enqueue("k");
            await().atMost(Duration.ofSeconds(5)).until(() -> passes.get() == 3);
        }
    }

    @Test
    void closedControllersIgnoreNewKeys() {
        AtomicInteger passes = new AtomicInteger();
        Controller<String> controller = new Controller<>("test", key -> {
            passes.incrementAndGet();
            return Reconciler.Result.done();
        }, 1, FAST);
        controller.start();
        controller.close();
        controller.enqueue("k");
        assertThat(controller.pending()).isZero();
        assertThat(passes.get()).isZero();
    }

    @Test
    void backoffDoublesUpToItsCap() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1));
        assertThat(backoff.delay(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.delay(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delay(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(backoff.delay(5)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delay(500)).isEqualTo(Duration.ofSeconds(1));
    }

    /** A started controller of one worker, once its reconciliation of {@code key} by {@code reconciler} has begun. */
    private static Controller<String> reconcilingOneKey(String key, Reconciler<String> reconciler)
            throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Controller<String> controller = new Controller<>("test", any -> {
            started.countDown();
            return reconciler.reconcile(any);
        }, 1, FAST);
        controller.start();
        controller.enqueue(key);
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        return controller;
    }
}
