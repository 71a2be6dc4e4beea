package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.josdk.JosdkChecksumShard;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Which example runs the sandbox's shards ({@code --shard-impl}): the checksum controller on
 * shard-client, or the same job as a java-operator-sdk operator on shard-josdk. Both print the same
 * reconcile lines and write the same Secrets.
 */
enum ShardImpl {

    CHECKSUM("checksum") {
        @Override
        Running start(KubernetesClient client, ChecksumShard.Options options, Consumer<String> reconcileLog) {
            ChecksumShard shard = ChecksumShard.start(client, options, reconcileLog);
            return new Running(shard::close, shard::kill);
        }
    },
    JOSDK("josdk") {
        @Override
        Running start(KubernetesClient client, ChecksumShard.Options options, Consumer<String> reconcileLog) {
            JosdkChecksumShard shard = JosdkChecksumShard.start(client, options, reconcileLog);
            return new Running(shard::close, shard::kill);
        }
    };

    /** A running shard: a graceful stop (its Lease released) and a kill (its Lease left as it was). */
    record Running(Runnable close, Runnable kill) {
    }

    private final String flagValue;

    ShardImpl(String flagValue) {
        this.flagValue = flagValue;
    }

    abstract Running start(KubernetesClient client, ChecksumShard.Options options, Consumer<String> reconcileLog);

    static Optional<ShardImpl> named(String value) {
        return Arrays.stream(values()).filter(impl -> impl.flagValue.equals(value)).findFirst();
    }

    /** {@code checksum|josdk}, for the usage. */
    static String names() {
        return Arrays.stream(values()).map(ShardImpl::toString).collect(Collectors.joining("|"));
    }

    @Override
    public String toString() {
        return flagValue;
    }
}
