package dev.ringmaster.examples.josdk;

import dev.ringmaster.examples.checksum.ChecksumController;
import dev.ringmaster.examples.checksum.CommandLine;

/**
 * {@code bin/josdk-checksum-operator}: one shard of the JOSDK checksum operator until SIGTERM (or
 * Ctrl-C), with {@code bin/checksum-controller}'s flags, start check, reconcile lines and exit codes.
 */
public final class JosdkChecksumOperator {

    static final String NAME = "josdk-checksum-operator";
    static final String USAGE = CommandLine.usage(NAME, """
            One shard of the example java-operator-sdk operator, sharded with shard-josdk: for every
            ConfigMap the sharder assigns to this shard it keeps a Secret checksums-<configmap> with the
            SHA-256 of each data key, controlled by the ConfigMap.""");

    private JosdkChecksumOperator() {
    }

    public static void main(String[] args) {
        ChecksumController.main(NAME, USAGE, JosdkChecksumShard::start, args);
    }
}
