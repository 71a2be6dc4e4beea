package dev.ringmaster.bench.webhook;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Sends AdmissionReview POSTs over a fixed set of keep-alive TLS connections (HTTP/1.1, as the API
 * server's client does per connection), one thread per connection.
 *
 * <p>{@link #atRate} is open-loop: a pacer releases requests at fixed times whatever the answers do,
 * and a request's latency runs from its scheduled time, so a slow server is charged for the queueing
 * it causes (no coordinated omission). {@link #saturate} is closed-loop: every connection sends its
 * next request as soon as the last is answered, for the most the server can do.
 */
final class LoadClient implements AutoCloseable {

    /** One measurement: latencies in nanoseconds (sorted), errors, and how long it took. */
    record Result(long[] latencies, long errors, String firstError, long elapsedNanos) {

        double percentileMillis(double percentile) {
            if (latencies.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.ceil(percentile / 100.0 * latencies.length) - 1;
            return latencies[Math.max(0, Math.min(latencies.length - 1, index))] / 1e6;
        }

        double maxMillis() {
            return latencies.length == 0 ? Double.NaN : latencies[latencies.length - 1] / 1e6;
        }

        double throughput() {
            return latencies.length / (elapsedNanos / 1e9);
        }
    }

    private static final long STOP = Long.MIN_VALUE;

    private final List<Connection> connections = new ArrayList<>();
    private final List<byte[]> requests;
    private final boolean checkUid;
    private final AtomicLong next = new AtomicLong();

    /**
     * @param requests complete HTTP requests (head and body), sent in turn
     * @param checkUid whether an answer must echo the request's uid ({@code "uid":"bench-<i>"})
     */
    LoadClient(SSLContext tls, int port, int connectionCount, List<byte[]> requests, boolean checkUid)
            throws IOException {
        this.requests = requests;
        this.checkUid = checkUid;
        for (int i = 0; i < connectionCount; i++) {
            connections.add(new Connection(tls, port));
        }
    }

    /** {@code rate} requests per second for {@code seconds}, open-loop. */
    Result atRate(int rate, double seconds) throws InterruptedException {
        int total = (int) Math.round(rate * seconds);
        BlockingQueue<Long> scheduled = new ArrayBlockingQueue<>(total + connections.size());
        Worker[] workers = new Worker[connections.size()];
        for (int i = 0; i < workers.length; i++) {
            Connection connection = connections.get(i);
            workers[i] = new Worker(total, () -> {
                long intended = scheduled.take();
                return intended == STOP ? STOP : intended;
            }, connection);
            workers[i].start();
        }
        long start = System.nanoTime();
        double interval = 1e9 / rate;
        for (int i = 0; i < total; i++) {
            long at = start + (long) (i * interval);
            long wait = at - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            scheduled.add(at);
        }
        for (int i = 0; i < workers.length; i++) {
            scheduled.add(STOP);
        }
        return collect(workers, start);
    }

    /** Every connection sends back-to-back for {@code seconds}. */
    Result saturate(double seconds) throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Worker[] workers = new Worker[connections.size()];
        long start = System.nanoTime();
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker((int) (seconds * 100_000), () -> {
                long now = System.nanoTime();
                return now < end ? now : STOP;
            }, connections.get(i));
            workers[i].start();
        }
        return collect(workers, start);
    }

    private static Result collect(Worker[] workers, long start) throws InterruptedException {
        long errors = 0;
        String firstError = null;
        long[] all = new long[0];
        long lastDone = start;
        for (Worker worker : workers) {
            worker.join();
            errors += worker.errors;
            if (firstError == null) {
                firstError = worker.firstError;
            }
            int from = all.length;
            all = Arrays.copyOf(all, from + worker.count);
            System.arraycopy(worker.latencies, 0, all, from, worker.count);
            lastDone = Math.max(lastDone, worker.lastDone);
        }
        Arrays.sort(all);
        return new Result(all, errors, firstError, lastDone - start);
    }

    @Override
    public void close() {
        connections.forEach(Connection::close);
    }

    private interface Schedule {
        /** The time the next request is due (nanoTime), or {@link #STOP}. */
        long next() throws InterruptedException;
    }

    private final class Worker extends Thread {
        private final long[] latencies;
        private final Schedule schedule;
        private final Connection connection;
        private int count;
        private long errors;
        private String firstError;
        private long lastDone;

        Worker(int capacity, Schedule schedule, Connection connection) {
            super("bench-client");
            setDaemon(true);
            this.latencies = new long[capacity];
            this.schedule = schedule;
            this.connection = connection;
        }

        @Override
        public void run() {
            try {
                for (long intended = schedule.next(); intended != STOP; intended = schedule.next()) {
                    int index = (int) (next.getAndIncrement() % requests.size());
                    String problem = connection.exchange(requests.get(index), checkUid ? "\"uid\":\"bench-" + index + "\"" : null);
                    long done = System.nanoTime();
                    lastDone = done;
                    if (problem != null) {
                        errors++;
                        if (firstError == null) {
                            firstError = problem;
                        }
                    } else if (count < latencies.length) {
                        latencies[count++] = done - intended;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One keep-alive connection; reconnects after an error. */
    private static final class Connection {
        private final SSLContext tls;
        private final int port;
        private SSLSocket socket;
        private InputStream in;
        private OutputStream out;

        Connection(SSLContext tls, int port) throws IOException {
            this.tls = tls;
            this.port = port;
            open();
        }

        private void open() throws IOException {
            socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(30_000);
            socket.startHandshake();
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }

        /** Sends one request, reads its answer; null when it is a 200 (echoing {@code expect}), else what went wrong. */
        String exchange(byte[] request, String expect) {
            try {
                if (socket == null) {
                    open();
                }
                out.write(request);
                out.flush();
                String status = line();
                int length = -1;
                for (String header = line(); !header.isEmpty(); header = line()) {
                    if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                        length = Integer.parseInt(header.substring(15).trim());
                    }
                }
                byte[] body = in.readNBytes(Math.max(0, length));
                if (!status.startsWith("HTTP/1.1 200")) {
                    return status + " " + new String(body, StandardCharsets.UTF_8);
                }
                if (expect != null && !new String(body, StandardCharsets.UTF_8).contains(expect)) {
                    return "answer without " + expect + ": " + new String(body, StandardCharsets.UTF_8);
                }
                return null;
            } catch (IOException | RuntimeException e) {
                close();
                socket = null;
                return e.toString();
            }
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder(64);
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }

        void close() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
