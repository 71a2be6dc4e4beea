package dev.ringmaster.sandbox;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What the sandbox prints while it runs: events as lines ({@code [  12.3s] killed shard-2}) and a
 * block with the phase and the shard table. On a terminal the block is redrawn in place every
 * second, below the events; otherwise (a pipe, a file) it is printed again only when its content
 * changed, so a log of it stays readable. Disabled, it prints nothing.
 */
final class LiveView {

    private static final String ERASE_TO_END = "\033[J";

    private final PrintStream out;
    private final boolean enabled;
    private final boolean terminal;
    private final LongSupplier elapsedMillis;
    private final int width;
    private String block = "";
    private int blockLines;
    private String lastPrintedBlock = "";

    /**
     * @param out           where to print
     * @param enabled       false prints nothing at all
     * @param terminal      whether {@code out} is a terminal, where the block is redrawn in place
     * @param width         the terminal's columns: longer lines of the block are cut, so that it is
     *                      redrawn exactly in place; 0 when unknown (lines are kept whole)
     * @param elapsedMillis time since the sandbox started
     */
    LiveView(PrintStream out, boolean enabled, boolean terminal, int width, LongSupplier elapsedMillis) {
        this.out = out;
        this.enabled = enabled;
        this.terminal = terminal;
        this.width = width;
        this.elapsedMillis = elapsedMillis;
    }

    /** Prints one event line (above the block, on a terminal). */
    synchronized void event(String message) {
        if (!enabled) {
            return;
        }
        eraseBlock();
        out.println(stamp() + message);
        if (terminal) {
            drawBlock();
        }
        out.flush();
    }

    /**
     * Shows the block: {@code phase} and {@code body} (the table and a summary line). On a terminal
     * it replaces the block shown before; elsewhere it is printed if it differs from the last one.
     */
    synchronized void show(String phase, String body) {
        if (!enabled) {
            return;
        }
        String content = phase + System.lineSeparator() + body;
        if (terminal) {
            eraseBlock();
            block = content;
            drawBlock();
        } else if (!content.equals(lastPrintedBlock)) {
            lastPrintedBlock = content;
            out.print(stamp() + content);
        }
        out.flush();
    }

    /** Removes the block from a terminal for good (before the final result is printed). */
    synchronized void clear() {
        if (enabled && terminal) {
            eraseBlock();
            block = "";
            out.flush();
        }
    }

    private void drawBlock() {
        if (block.isEmpty()) {
            return;
        }
        List<String> lines = (stamp() + block).lines()
                .map(line -> width > 1 && line.length() >= width ? line.substring(0, width - 1) : line)
                .toList();
        lines.forEach(out::println);
        blockLines = lines.size();
    }

    private void eraseBlock() {
        if (terminal && blockLines > 0) {
            // to the start of the block's first line, then clear everything below
            out.print("\033[" + blockLines + "F" + ERASE_TO_END);
            blockLines = 0;
        }
    }

    private String stamp() {
        return String.format(Locale.ROOT, "[%6.1fs] ", elapsedMillis.getAsLong() / 1000.0);
    }
}
