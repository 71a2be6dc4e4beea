package dev.ringmaster.runflags;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

class RunFlagOverridesTest {

    @Test
    void aGivenFlagReplacesTheKeysItSetsWhateverTheFileSays() {
        RunFlagOverrides overrides = new RunFlagOverrides(Map.of(
                "ringmaster.run.given", "defaultStrategy,namespace",
                "ringmaster.run.defaultStrategy", "rendezvous",
                "ringmaster.run.namespace", "sharding",
                "ringmaster.run.tlsDir", "/etc/ringmaster/tls")::get);

        Dictionary<String, Object> sharder = configuration("dev.ringmaster.sharder",
                "defaultStrategy", "consistent-hash", "leaderElectionNamespace", "elsewhere", "moveBudget", "7");
        overrides.modifyConfiguration(null, sharder);

        assertThat(sharder.get("defaultStrategy")).isEqualTo("rendezvous");
        assertThat(sharder.get("leaderElectionNamespace")).isEqualTo("sharding");
        assertThat(sharder.get("webhookServiceNamespace")).isEqualTo("sharding");
        assertThat(sharder.get("moveBudget")).as("keys no flag sets stay").isEqualTo("7");
    }

    @Test
    void flagsNotGivenAndOtherPidsAreLeftAlone() {
        RunFlagOverrides overrides = new RunFlagOverrides(Map.of(
                "ringmaster.run.given", "kubeconfig,shell",
                "ringmaster.run.kubeconfig", "/home/me/.kube/config",
                "ringmaster.run.shell", "true",
                "ringmaster.run.tlsDir", "/etc/ringmaster/tls")::get);

        Dictionary<String, Object> webhook = configuration("dev.ringmaster.webhook", "tlsDir", "/tls");
        overrides.modifyConfiguration(null, webhook);
        Dictionary<String, Object> kubernetes = configuration("dev.ringmaster.kubernetes", "kubeconfig", "");
        overrides.modifyConfiguration(null, kubernetes);

        assertThat(webhook.get("tlsDir")).as("--tls-dir was not given").isEqualTo("/tls");
        assertThat(kubernetes.get("kubeconfig")).isEqualTo("/home/me/.kube/config");
        assertThat(overrides.overrides()).containsOnlyKeys("dev.ringmaster.kubernetes");
    }

    @Test
    void withoutGivenFlagsThereIsNothingToRegister() {
        assertThat(new RunFlagOverrides(Map.of("ringmaster.run.defaultStrategy", "rendezvous")::get).isEmpty())
                .as("simulate and the sandbox start without ringmaster.run.given").isTrue();
        assertThat(new RunFlagOverrides(Map.of("ringmaster.run.given", "shell")::get).isEmpty()).isTrue();
    }

    private static Dictionary<String, Object> configuration(String pid, String... keysAndValues) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put(Constants.SERVICE_PID, pid);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return properties;
    }
}
