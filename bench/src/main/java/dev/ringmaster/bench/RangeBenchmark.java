package dev.ringmaster.bench;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Range mode's in-process costs (docs/design.md section 9): placing the buckets over the shards, as the
 * sharder does on every membership change of a range-mode ring, and a shard's client-side check of one
 * object (FNV-1a of its uid, then its ranges), as it runs on every event when the server ignores the selector.
 */
public class RangeBenchmark extends InProcessBenchmark {

    @Param({"3", "10", "100"})
    public int shards;

    @Param({"64", "1024"})
    public int buckets;

    private List<String> names;
    private RangeSet firstShardsRanges;
    private String[] uids;
    private int next;

    @Setup
    public void setUp() {
        names = IntStream.range(0, shards).mapToObj(i -> "shard-" + i).toList();
        Map<String, RangeSet> placed = RangePlacement.place(names, buckets);
        firstShardsRanges = placed.get("shard-0");
        uids = IntStream.range(0, 1024).mapToObj(i -> UUID.nameUUIDFromBytes(("object-" + i).getBytes()).toString())
                .toArray(String[]::new);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Map<String, RangeSet> place() {
        return RangePlacement.place(names, buckets);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean clientSideFilter() {
        String uid = uids[next++ & 1023];
        return firstShardsRanges.contains(RangeKey.UID.hash(uid, "default"));
    }
}
