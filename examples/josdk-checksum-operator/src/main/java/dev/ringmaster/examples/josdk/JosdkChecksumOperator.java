package dev.ringmaster.examples.josdk;

import dev.ringmaster.examples.checksum.ChecksumController;
import dev.ringmaster.examples.checksum.CommandLine;

/**
 * {@code bin/josdk-checksum-operator}: one shard of the JOSDK checksum operator until SIGTERM (or
 * Ctrl-C), with {@code bin/checksum-controller}'s flags, start check, reconcile lines and exit codes,
 * {@code --range-mode} included (its {@link dev.ringmaster.shard.josdk.ShardedOperator} serves the
 * Lease's hash ranges when its Sharding is in range mode).
 */
public final class JosdkChecksumOperator {

    static final String NAME = "josdk-checksum-operator";
    static final String USAGE = CommandLine.usage(NAME, """
            One shard of the example java-operator-sdk operator, sharded with shard-josdk: for every
            ConfigMap the sharder assigns to this shard it keeps a Secret checksums-<configmap> with the
            SHA-256 of each data key, controlled by the ConfigMap.""", true);

    /** {@link JosdkChecksumShard#start}, range mode included. */
    static final ChecksumController.Shards SHARDS = ChecksumController.Shards.withRangeMode(JosdkChecksumShard::start);

    private JosdkChecksumOperator() {
    }

    public static void main(String[] args) {
        ChecksumController.main(NAME, USAGE, SHARDS, args);
    }
}
