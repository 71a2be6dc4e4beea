package dev.ringmaster.shard.client;

import dev.ringmaster.ring.load.LoadReport;

/** Tests of shard-josdk take a load meter's window here, as its Lease would ({@code LoadMeter#snapshot} is package-private). */
public final class LoadMeterAccess {

    private LoadMeterAccess() {
    }

    public static LoadReport snapshot(LoadMeter meter) {
        return meter.snapshot();
    }
}
