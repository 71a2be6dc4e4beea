package dev.ringmaster.sharder.rebalance;

import java.time.Duration;

/**
 * How hard a rebalance pass may push.
 *
 * @param pageSize        objects per list request
 * @param concurrentMoves writes in flight at once
 * @param moveBudget      objects of a ring in drain at once; more wait for a later pass
 * @param resync          periodic pass of a ring with nothing pending
 * @param pendingRetry    next pass of a ring that progressed and left work (budget exhausted,
 *                        conflicts); doubled for each pass in a row that made no progress, up to 30 s
 */
public record RebalanceLimits(int pageSize, int concurrentMoves, int moveBudget, Duration resync,
        Duration pendingRetry) {

    public static final RebalanceLimits DEFAULT =
            new RebalanceLimits(500, 50, 5000, Duration.ofMinutes(5), Duration.ofSeconds(1));

    public RebalanceLimits {
        if (pageSize < 1 || concurrentMoves < 1 || moveBudget < 0) {
            throw new IllegalArgumentException("page size and concurrent moves must be positive, the move budget not negative");
        }
    }
}
