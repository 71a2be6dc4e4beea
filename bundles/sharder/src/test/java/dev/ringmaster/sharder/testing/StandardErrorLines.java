package dev.ringmaster.sharder.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What is written to standard error while open, where the test logging binding (slf4j-simple, which
 * looks {@code System.err} up at each line) writes log lines and their stack traces; still passed on to
 * the stream it replaced.
 */
public final class StandardErrorLines implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    public StandardErrorLines() {
        OutputStream both = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                synchronized (captured) {
                    captured.write(bytes, offset, length);
                }
                original.write(bytes, offset, length);
            }
        };
        System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
    }

    /** The lines written so far. */
    public List<String> lines() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** The lines written so far that contain {@code text}, ignoring case. */
    public List<String> containing(String text) {
        return lines().stream().filter(line -> line.toLowerCase().contains(text.toLowerCase())).toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
