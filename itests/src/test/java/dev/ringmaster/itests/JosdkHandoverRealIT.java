package dev.ringmaster.itests;

import dev.ringmaster.itests.support.ShardFleet;

/**
 * {@link DrainHandoverRealIT} with shards of the JOSDK example operator
 * ({@code bin/josdk-checksum-operator}, a java-operator-sdk 5 operator on shard-josdk): scale-out by
 * drain, graceful scale-in, a frozen shard declared dead, 0 overlapping reconciles.
 */
public class JosdkHandoverRealIT extends DrainHandoverRealIT {

    public JosdkHandoverRealIT() {
        super(ShardFleet.JOSDK_CHECKSUM_OPERATOR, "josdk-handover");
    }
}
