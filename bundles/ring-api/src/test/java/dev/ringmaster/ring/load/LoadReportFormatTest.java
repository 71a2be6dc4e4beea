package dev.ringmaster.ring.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The annotation form of a report whose window is shorter than a second: written as 1 s, so it can be read back. */
class LoadReportFormatTest {

    @Test
    void aSubSecondWindowIsWrittenAsOneSecondAndReadBack() {
        LoadReport report = new LoadReport(Duration.ofMillis(400), 0.5, 0.01, 3, List.of(new CellLoad(0, 7, 0.5, 3)));

        String text = report.format();

        assertThat(text).isEqualTo("window=1s busy=0.5000 wait=0.0100 objects=3 cells=0-7:0.5000:3");
        LoadReport read = LoadReport.parse(text);
        assertThat(read.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(read.cells()).containsExactly(new CellLoad(0, 7, 0.5, 3));
    }

    @Test
    void wholeSecondsAreWrittenAsBefore() {
        LoadReport report = new LoadReport(Duration.ofMillis(15_900), 0, 0, 0, List.of());

        assertThat(report.format()).isEqualTo("window=15s busy=0.0000 wait=0.0000 objects=0 cells=");
    }
}
