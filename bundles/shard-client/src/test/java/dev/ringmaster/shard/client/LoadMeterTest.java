package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.testing.apiserver.Fnv1a;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The load meter with a ticker that moves only when the test says. The cells of the uids below are pinned: the top
 * 12 bits of their FNV-1a 64, computed outside this code base; the last test finds uids for every cell with the
 * test tree's own FNV-1a ({@link Fnv1a}).
 */
class LoadMeterTest {

    private static final long SECOND = 1_000_000_000L;
    /** In cell 697. */
    private static final String A = "36f675cc-81e7-4ef5-a8e2-5d940ed90475";
    /** In cell 922. */
    private static final String C = "0cb1e29c-658c-4a14-95e6-0af593bd04cf";
    /** In cell 2097. */
    private static final String B = "451abd81-f1d6-4ed6-97f5-e837d70820fe";
    /** In cell 1877, which the ranges below do not cover. */
    private static final String D = "90c192cf-d3ac-44af-8f21-ddb66cad4a26";
    /** Cells 0-1023 and 2048-2111. */
    private static final RangeSet SERVED = RangeSet.of(List.of(
            new HashRange(0x0000000000000000L, 0x3FFFFFFFFFFFFFFFL),
            new HashRange(0x8000000000000000L, 0x83FFFFFFFFFFFFFFL)));

    private final AtomicLong ticker = new AtomicLong(7 * SECOND);

    @Test
    void rangeModeReportsBusyTimeWaitAndObjectsPerCellOfTheServedRanges() {
        LoadMeter meter = new LoadMeter(ticker::get, () -> new LoadMeter.Served(SERVED, RangeKey.UID));
        List<ConfigMap> objects = List.of(object(A), object(B), object(C), object(D));
        meter.count("store", () -> objects);

        meter.reconciled(object(A), 1_500_000_000L);
        meter.reconciled(object(A), 500_000_000L);
        meter.reconciled(object(B), SECOND);
        meter.reconciled(object(D), SECOND);
        meter.waited(200_000_000L);
        meter.waited(400_000_000L);
        meter.waited(900_000_000L);
        ticker.addAndGet(10 * SECOND);

        LoadReport report = meter.snapshot();

        assertThat(report.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(report.busy()).isCloseTo(0.4, within(1e-12)); // 4 s busy in 10 s, D's outside the cells
        assertThat(report.queueWait()).isCloseTo(0.5, within(1e-12));
        assertThat(report.objects()).isEqualTo(4);
        List<CellLoad> cells = List.of(
                new CellLoad(0, 696, 0, 0),
                new CellLoad(697, 697, 0.2, 1),
                new CellLoad(698, 921, 0, 0),
                new CellLoad(922, 922, 0, 1),
                new CellLoad(923, 1023, 0, 0),
                new CellLoad(2048, 2096, 0, 0),
                new CellLoad(2097, 2097, 0.1, 1),
                new CellLoad(2098, 2111, 0, 0));
        assertThat(report.cells()).isEqualTo(cells);

        // the next window starts at the snapshot: nothing busy since, the objects still there
        ticker.addAndGet(5 * SECOND);
        LoadReport next = meter.snapshot();
        assertThat(next.window()).isEqualTo(Duration.ofSeconds(5));
        assertThat(next.busy()).isZero();
        assertThat(next.queueWait()).isZero();
        assertThat(next.objects()).isEqualTo(4);
        assertThat(next.cells()).isEqualTo(cells.stream()
                .map(cell -> new CellLoad(cell.first(), cell.last(), 0, cell.objects())).toList());
    }

    @Test
    void theNamespaceKeyPutsAnObjectInItsNamespacesCell() {
        // namespace "team-a" is in cell 3561 (FNV-1a 64, computed outside this code base)
        LoadMeter meter = new LoadMeter(ticker::get, () -> new LoadMeter.Served(RangeSet.ALL, RangeKey.NAMESPACE));
        meter.reconciled(object(A), 3 * SECOND);
        ticker.addAndGet(6 * SECOND);

        assertThat(meter.snapshot().cells()).containsExactly(
                new CellLoad(0, 3560, 0, 0), new CellLoad(3561, 3561, 0.5, 0), new CellLoad(3562, 4095, 0, 0));
    }

    @Test
    void labelModeReportsByCellsOfTheUidsOverTheWholeSpace() {
        LoadMeter meter = new LoadMeter(ticker::get, LoadMeter.LABEL_MODE);
        meter.count("store", () -> List.of(object(A), object(B)));
        meter.reconciled(object(A), 3 * SECOND);
        meter.waited(SECOND);
        ticker.addAndGet(12 * SECOND);

        LoadReport report = meter.snapshot();

        assertThat(report.format()).isEqualTo("window=12s busy=0.2500 wait=1.0000 objects=2 cells=0-696:0.0000:0,"
                + "697-697:0.2500:1,698-2096:0.0000:0,2097-2097:0.0000:1,2098-4095:0.0000:0");
    }

    @Test
    void aStoreAddedTwiceIsCountedOnceUntilRemovedAsOften() {
        LoadMeter meter = new LoadMeter(ticker::get, LoadMeter.LABEL_MODE);
        List<ConfigMap> objects = List.of(object(A), object(B));
        meter.count("store", () -> objects);
        meter.count("store", () -> objects);
        meter.count("other", () -> List.of(object(C)));
        ticker.addAndGet(SECOND);
        assertThat(meter.snapshot().objects()).isEqualTo(3);

        meter.uncount("store");
        ticker.addAndGet(SECOND);
        assertThat(meter.snapshot().objects()).isEqualTo(3);

        meter.uncount("store");
        meter.uncount("never-added");
        ticker.addAndGet(SECOND);
        assertThat(meter.snapshot().objects()).isEqualTo(1);
    }

    /**
     * All 4096 cells served and busy: the report is bounded to 128 entries, still covers the whole space, keeps its
     * totals, and its annotation stays under 3,000 characters.
     */
    @Test
    void everyCellBusyIsBoundedTo128EntriesThatKeepTheTotals() {
        LoadMeter meter = new LoadMeter(ticker::get, () -> new LoadMeter.Served(RangeSet.ALL, RangeKey.UID));
        List<ConfigMap> objects = oneObjectPerCell();
        meter.count("store", () -> objects);
        long busyNanos = 0;
        for (int i = 0; i < objects.size(); i++) {
            long nanos = (i % 5 + 1) * 1_000_000L; // 1 to 5 ms
            meter.reconciled(objects.get(i), nanos);
            busyNanos += nanos;
        }
        ticker.addAndGet(15 * SECOND);
        double expectedBusy = busyNanos / (15.0 * SECOND);

        LoadReport report = meter.snapshot();

        assertThat(report.cells()).hasSizeLessThanOrEqualTo(LoadReport.MAX_ENTRIES);
        assertThat(report.cells().get(0).first()).isZero();
        assertThat(report.cells().get(report.cells().size() - 1).last()).isEqualTo(LoadReport.CELLS - 1);
        for (int i = 1; i < report.cells().size(); i++) {
            assertThat(report.cells().get(i).first()).isEqualTo(report.cells().get(i - 1).last() + 1);
        }
        assertThat(report.busy()).isCloseTo(expectedBusy, within(1e-12));
        assertThat(report.cells().stream().mapToDouble(CellLoad::busy).sum()).isCloseTo(expectedBusy, within(1e-9));
        assertThat(report.objects()).isEqualTo(LoadReport.CELLS);
        assertThat(report.cells().stream().mapToLong(CellLoad::objects).sum()).isEqualTo(LoadReport.CELLS);
        String annotation = report.format();
        assertThat(annotation.length()).isLessThan(3_000);
        assertThat(LoadReport.parse(annotation).cells()).hasSameSizeAs(report.cells());
    }

    /** ConfigMaps with random uids, one in each cell (by the test tree's FNV-1a). */
    private static List<ConfigMap> oneObjectPerCell() {
        ConfigMap[] byCell = new ConfigMap[LoadReport.CELLS];
        Random random = new Random(33);
        int found = 0;
        while (found < byCell.length) {
            String uid = new UUID(random.nextLong(), random.nextLong()).toString();
            int cell = (int) (Fnv1a.fnv1a64(uid) >>> 52);
            if (byCell[cell] == null) {
                byCell[cell] = object(uid);
                found++;
            }
        }
        return new ArrayList<>(List.of(byCell));
    }

    private static ConfigMap object(String uid) {
        return new ConfigMapBuilder().withNewMetadata().withName("cm-" + uid).withNamespace("team-a").withUid(uid)
                .endMetadata().build();
    }
}
