package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ResultTest {

    @Test
    void aCleanRunIsOkAndItsJsonIsOneObject() {
        Result result = result(0, 0, 0, Optional.empty());

        assertThat(result.ok()).isTrue();
        assertThat(result.problem()).isEmpty();
        assertThat(result.toJson()).isEqualTo("{\"scenario\":\"kill-shard\",\"shards\":3,\"objects\":60,"
                + "\"seconds\":47.3,\"scenarioSeconds\":33.1,\"perShard\":{\"shard-0\":0,\"shard-1\":27,\"shard-2\":33},"
                + "\"unassigned\":0,\"draining\":0,\"onUnavailableShards\":0,\"moves\":24,\"overlappingReconciles\":0,"
                + "\"reconciles\":84,\"shardStates\":{\"shard-0\":\"dead\",\"shard-1\":\"ready\",\"shard-2\":\"ready\"},"
                + "\"ok\":true}");
    }

    @Test
    void unassignedObjectsObjectsOnUnavailableShardsAndOverlapsFail() {
        assertThat(result(1, 0, 0, Optional.empty()).ok()).isFalse();
        assertThat(result(0, 2, 0, Optional.empty()).ok()).isFalse();
        Result overlapping = result(0, 0, 3, Optional.empty());
        assertThat(overlapping.ok()).isFalse();
        assertThat(overlapping.problem())
                .contains("3 pair(s) of reconciles of one object by two shards at overlapping times");
        assertThat(overlapping.toJson()).contains("\"overlappingReconciles\":3", "\"ok\":false");
    }

    @Test
    void anErrorFailsAndIsInTheJson() {
        Result timedOut = result(0, 0, 0, Optional.of("kill-shard: not done within 120 s (shard-0 still holds 3 \"objects\")"));

        assertThat(timedOut.ok()).isFalse();
        assertThat(timedOut.toJson()).endsWith(
                ",\"ok\":false,\"error\":\"kill-shard: not done within 120 s (shard-0 still holds 3 \\\"objects\\\")\"}");
        assertThat(timedOut.toText()).contains("FAILED: kill-shard: not done within 120 s");
    }

    @Test
    void theTextIsATableWithASummary() {
        String text = result(0, 0, 0, Optional.empty()).toText();

        assertThat(text).startsWith("scenario kill-shard (33.1 s), 47.3 s in all: 3 shard(s) at the start, 60 objects")
                .contains("SHARD    LEASE STATE  PROCESS   OBJECTS")
                .containsPattern("shard-0\\s+dead\\s+killed\\s+0")
                .containsPattern("shard-2\\s+ready\\s+running\\s+33")
                .contains("unassigned 0, draining 0, moves 24, overlapping reconciles 0 (of 84 reconciles)")
                .contains("OK: every object is on an available shard");
    }

    @Test
    void jsonStringsAreEscaped() {
        assertThat(Result.quote("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    private static Result result(int unassigned, int onUnavailable, long overlaps, Optional<String> error) {
        return new Result(Optional.of(Scenario.KILL_SHARD), 3, 60, 47.3, 33.1,
                new TreeMap<>(Map.of("shard-0", 0, "shard-1", 27, "shard-2", 33)),
                new TreeMap<>(Map.of("shard-0", "dead", "shard-1", "ready", "shard-2", "ready")),
                Map.of("shard-0", "killed", "shard-1", "running", "shard-2", "running"),
                unassigned, 0, onUnavailable, 24, overlaps, 84, error);
    }
}
