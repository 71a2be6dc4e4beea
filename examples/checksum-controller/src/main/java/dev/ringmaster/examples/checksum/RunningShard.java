package dev.ringmaster.examples.checksum;

import dev.ringmaster.shard.client.Sharding;

/** A started shard of a checksum controller implementation; closing it stops it gracefully and releases its Lease. */
public interface RunningShard extends AutoCloseable {

    /** The shard's side of the contract: its labels, Lease and load reports. */
    Sharding sharding();
}
