package dev.ringmaster.ring.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.ranges.RangeSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadTest {

    private static final String PINNED = "window=15s busy=0.4120 wait=0.0130 objects=1532"
            + " cells=0-63:0.1200:310,64-127:0.0800:290";

    @Test
    void aReportReadsAndWritesItsAnnotationForm() {
        LoadReport report = LoadReport.parse(PINNED);
        assertThat(report).isEqualTo(new LoadReport(Duration.ofSeconds(15), 0.412, 0.013, 1532,
                List.of(new CellLoad(0, 63, 0.12, 310), new CellLoad(64, 127, 0.08, 290))));
        assertThat(report.format()).isEqualTo(PINNED);
        assertThat(LoadReport.parse(PINNED + " later=word").format()).as("a later version's word").isEqualTo(PINNED);
        assertThat(LoadReport.parse("window=5s busy=0 wait=0 objects=0 cells=").cells()).isEmpty();
    }

    @Test
    void whatIsNotAReportIsRefusedNamingThePart() {
        assertThatThrownBy(() -> LoadReport.parse("window=15 busy=0 wait=0 objects=0 cells="))
                .hasMessageContaining("window");
        assertThatThrownBy(() -> LoadReport.parse("window=15s busy=-1 wait=0 objects=0 cells="))
                .hasMessageContaining("busy time -1.0");
        assertThatThrownBy(() -> LoadReport.parse("window=15s busy=NaN wait=0 objects=0 cells="))
                .hasMessageContaining("busy time NaN");
        assertThatThrownBy(() -> LoadReport.parse("window=15s busy=1 wait=0 objects=0 cells=0-9:1:1,5-20:1:1"))
                .hasMessageContaining("cells 5-20 do not come after 0-9");
        assertThatThrownBy(() -> LoadReport.parse("window=15s busy=1 wait=0 objects=0 cells=0-4096:1:1"))
                .hasMessageContaining("cells 0-4096");
        assertThatThrownBy(() -> LoadReport.parse("window=15s busy=1 wait=0 cells=")).hasMessageContaining("lacks");
        assertThatThrownBy(() -> LoadReport.parse("busy")).hasMessageContaining("\"busy\" is not name=value");
        assertThatThrownBy(() -> LoadReport.parse("")).hasMessageContaining("empty");
    }

    @Test
    void aCellIsTheTopTwelveBitsAndItsHashesAreOneFourThousandNinetySixth() {
        assertThat(LoadReport.cell(0)).isZero();
        assertThat(LoadReport.cell(0x0010000000000000L)).isEqualTo(1);
        assertThat(LoadReport.cell(-1L)).isEqualTo(4095);
        assertThat(LoadReport.hashes(0, 0).toString()).isEqualTo("0x0000000000000000-0x0010000000000000");
        assertThat(LoadReport.hashes(4095, 4095).toString()).isEqualTo("0xfff0000000000000-0x10000000000000000");
    }

    @Test
    void boundingKeepsTheTotalsAndTheBusyCellsFine() {
        List<CellLoad> cells = new ArrayList<>();
        double busy = 0;
        for (int cell = 0; cell < LoadReport.CELLS; cell++) {
            double cost = cell == 1000 ? 5.0 : 0.001;
            cells.add(new CellLoad(cell, cell, cost, 3));
            busy += cost;
        }
        LoadReport bounded = new LoadReport(Duration.ofSeconds(15), busy, 0.5, 3 * 4096, cells)
                .bounded(LoadReport.MAX_ENTRIES);
        assertThat(bounded.cells()).hasSize(LoadReport.MAX_ENTRIES);
        assertThat(bounded.cells().stream().mapToLong(CellLoad::objects).sum()).isEqualTo(3 * 4096);
        assertThat(bounded.cells().stream().mapToDouble(CellLoad::busy).sum()).isCloseTo(busy, within());
        assertThat(bounded.cells()).as("the hot cell alone").contains(new CellLoad(1000, 1000, 5.0, 3));
        assertThat(bounded.cells().get(0).first()).isZero();
        assertThat(bounded.cells().get(bounded.cells().size() - 1).last()).isEqualTo(4095);
        assertThat(bounded.format()).hasSizeLessThan(3000);
    }

    @Test
    void aMapSpreadsEachEntryOverTheCellsItsShardServesAndCountsTheRestAtTheMean() {
        RangeSet cells0To1 = RangeSet.of(List.of(LoadReport.hashes(0, 1)));
        LoadMap map = LoadMap.builder().report(cells0To1,
                new LoadReport(Duration.ofSeconds(15), 4, 0, 8, List.of(new CellLoad(0, 3, 4, 8)))).build();
        assertThat(map.cellBusy(0)).isEqualTo(2.0);
        assertThat(map.cellBusy(1)).isEqualTo(2.0);
        assertThat(map.cellBusy(2)).as("unreported: the mean of the reported cells").isEqualTo(2.0);
        assertThat(map.cellObjects(4095)).isEqualTo(4.0);
        assertThat(map.busy(RangeSet.ALL)).isEqualTo(2.0 * 4096);
        // half a cell counts half
        assertThat(map.busy(RangeSet.parse("0x0000000000000000-0x0008000000000000"))).isEqualTo(1.0);
    }

    @Test
    void imbalanceIsTheBusiestOverTheMean() {
        RangeSet low = RangeSet.of(List.of(LoadReport.hashes(0, 2047)));
        RangeSet high = RangeSet.of(List.of(LoadReport.hashes(2048, 4095)));
        LoadMap map = LoadMap.builder()
                .report(low, new LoadReport(Duration.ofSeconds(15), 3, 0, 1, List.of(new CellLoad(0, 2047, 3, 1))))
                .report(high, new LoadReport(Duration.ofSeconds(15), 1, 0, 1, List.of(new CellLoad(2048, 4095, 1, 1))))
                .build();
        assertThat(map.imbalance(Map.of("a", low, "b", high))).isCloseTo(1.5, within());
        assertThat(map.imbalance(Map.of("a", RangeSet.ALL))).isEqualTo(1.0);
        assertThat(map.imbalance(Map.of())).isEqualTo(1.0);
        assertThat(LoadMap.uniform().imbalance(Map.of("a", low, "b", high))).isCloseTo(1.0, within());
        assertThat(LoadMap.uniform().imbalance(Map.of("a", RangeSet.of(List.of(LoadReport.hashes(0, 1023))),
                "b", RangeSet.of(List.of(LoadReport.hashes(1024, 4095)))))).as("by space: 3/4 over 1/2").isCloseTo(1.5, within());
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-9);
    }
}
