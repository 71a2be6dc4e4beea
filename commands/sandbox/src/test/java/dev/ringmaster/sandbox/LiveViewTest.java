package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LiveViewTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong millis = new AtomicLong(12_345);

    @Test
    void outsideATerminalTheBlockIsPrintedOnlyWhenItChanges() {
        LiveView view = new LiveView(out, true, false, 0, millis::get);

        view.event("killed shard-0");
        view.show("kill-shard: waiting", "  table 1\n");
        millis.addAndGet(1000);
        view.show("kill-shard: waiting", "  table 1\n");
        view.show("kill-shard: waiting", "  table 2\n");

        assertThat(printed()).isEqualTo(String.join(System.lineSeparator(),
                "[  12.3s] killed shard-0",
                "[  12.3s] kill-shard: waiting",
                "  table 1",
                "[  13.3s] kill-shard: waiting",
                "  table 2",
                ""));
    }

    @Test
    void onATerminalTheBlockIsRedrawnInPlaceBelowTheEvents() {
        LiveView view = new LiveView(out, true, true, 0, millis::get);

        view.show("phase", "  table 1\n");
        view.event("started shard-3");
        view.clear();

        String erase = "\033[2F\033[J";
        assertThat(printed()).isEqualTo("[  12.3s] phase" + System.lineSeparator() + "  table 1\n"
                + erase + "[  12.3s] started shard-3" + System.lineSeparator()
                + "[  12.3s] phase" + System.lineSeparator() + "  table 1\n"
                + erase);
    }

    @Test
    void onATerminalLinesOfTheBlockAreCutToItsWidthSoThatItIsRedrawnExactly() {
        LiveView view = new LiveView(out, true, true, 20, millis::get);

        view.show("a phase much longer than twenty columns", "  table\n");
        view.show("short", "  table\n");

        assertThat(printed()).isEqualTo("[  12.3s] a phase m\n  table\n" + "\033[2F\033[J" + "[  12.3s] short\n  table\n");
    }

    @Test
    void disabledItPrintsNothing() {
        LiveView view = new LiveView(out, false, true, 0, millis::get);

        view.event("started shard-0");
        view.show("phase", "table");
        view.clear();

        assertThat(printed()).isEmpty();
    }

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
