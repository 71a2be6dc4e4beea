package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.load.LoadReport;

/** How the leader reads a shard's load report ({@code ringmaster.dev/load}), for balancing and autoscaling alike. */
public final class LoadReports {

    /** Busy seconds per second a report may claim: more reconciles at once than any shard runs. */
    public static final double MAX_BUSY = 1024;

    private LoadReports() {
    }

    /**
     * The report an annotation holds, refused when its numbers cannot be true.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static LoadReport read(String text) {
        LoadReport report = LoadReport.parse(text);
        if (report.busy() > MAX_BUSY) {
            throw new IllegalArgumentException("busy time " + report.busy() + " s/s is more than " + MAX_BUSY
                    + " reconciles at once can spend");
        }
        return report;
    }
}
