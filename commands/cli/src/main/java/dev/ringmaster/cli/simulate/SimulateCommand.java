package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.launcher.command.Command;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.RingSurveyException;
import dev.ringmaster.sharder.survey.RingSurveyor;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.ComponentConstants;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * {@code ringmaster simulate}: runs a simulation with a strategy service as deployed, so any strategy
 * bundle in {@code bundle/} or {@code deploy/} can be simulated: over a synthetic fleet, or with
 * {@code --ring} over a ring read from a cluster (through the sharder bundle's {@link RingSurveyor}).
 */
@Component(property = Command.NAME + "=simulate")
public class SimulateCommand implements Command {

    private static final String NAME = "ringmaster simulate";
    /** The service property through which strategies publish their tokens-per-shard setting. */
    static final String TOKENS_PER_SHARD = "tokensPerShard";
    private static final Duration RECONFIGURATION_TIMEOUT = Duration.ofSeconds(10);

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile List<ServiceReference<PartitioningStrategy>> strategies;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ConfigurationAdmin configurationAdmin;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ServiceComponentRuntime componentRuntime;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile RingSurveyor surveyor;

    private ComponentContext context;

    @Activate
    void activate(ComponentContext context) {
        this.context = context;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        if (Flags.wantsHelp(args)) {
            out.println(SimulationOptions.USAGE);
            return 0;
        }
        try {
            Given given = SimulationOptions.FLAGS.parse(args);
            return given.has(RingPreviewOptions.RING) ? previewRing(RingPreviewOptions.of(given), out, err)
                    : simulate(SimulationOptions.of(given), out, err);
        } catch (UsageException e) {
            return e.report(NAME, err);
        }
    }

    private int simulate(SimulationOptions options, PrintStream out, PrintStream err) throws UsageException {
        try {
            SimulationResult result = Simulation.run(options.ranges().isPresent() ? options.ranges().get()
                    : deployedStrategy(options), options);
            out.print(options.json() ? result.toJson() + System.lineSeparator() : result.toTable());
            return 0;
        } catch (RuntimeException e) {
            err.println(NAME + ": the strategy failed: " + e);
            return 1;
        }
    }

    /** The strategy service the options name, configured with their {@code --tokens}. */
    private PartitioningStrategy deployedStrategy(SimulationOptions options) throws UsageException {
        ServiceReference<PartitioningStrategy> reference = strategy(options.strategy());
        if (options.tokensPerShard().isPresent()) {
            configureTokens(reference, options.tokensPerShard().getAsInt());
        }
        return locate(reference);
    }

    /**
     * {@code simulate --ring}: reads the ring from the cluster (read-only) and places its objects with
     * the strategy in force and with the candidate.
     */
    private int previewRing(RingPreviewOptions options, PrintStream out, PrintStream err) throws UsageException {
        try {
            ServiceReference<PartitioningStrategy> candidate = strategy(options.strategy());
            RingSurvey survey = survey(options);
            Map.Entry<String, String> inForce = RingPreview.strategyInForce(options.currentStrategy(), survey);
            ServiceReference<PartitioningStrategy> current = strategy(inForce.getKey(),
                    "the current strategy '" + inForce.getKey() + "' (" + inForce.getValue() + ") is not deployed here"
                            + " (add its bundle to deploy/, or name another with --current-strategy)");
            // rings are immutable: the current one is built before --tokens reconfigures the candidate
            ShardRing currentRing = build(current, survey);
            if (options.tokensPerShard().isPresent()) {
                configureTokens(candidate, options.tokensPerShard().getAsInt());
            }
            RingPreviewResult result = RingPreview.run(survey,
                    new RingPreview.Placement(inForce.getKey(), inForce.getValue(), currentRing),
                    new RingPreview.Placement(options.strategy(), "candidate", build(candidate, survey)));
            out.print(options.json() ? result.toJson() + System.lineSeparator() : result.toTable());
            return 0;
        } catch (RingSurveyException e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println(NAME + ": the strategy failed: " + e);
            return 1;
        }
    }

    /** The ring as the sharder sees it, read with the options' client. */
    private RingSurvey survey(RingPreviewOptions options) throws UsageException, RingSurveyException {
        RingSurveyor surveyor = this.surveyor;
        if (surveyor == null) {
            throw new RingSurveyException("the sharder bundle's ring survey is not available in bundle/");
        }
        try (KubernetesClient client = ClusterClient.open(options.kubeconfig())) {
            try {
                return surveyor.survey(client, options.kind(), options.ring());
            } catch (KubernetesClientException e) {
                throw new RingSurveyException("cannot read " + options.ringName() + ": " + ClusterClient.describe(e, client.getMasterUrl()));
            } catch (RuntimeException e) {
                throw new RingSurveyException("cannot read " + options.ringName() + ": " + e);
            }
        }
    }

    /** The strategy's ring over the ring's available shards. */
    private ShardRing build(ServiceReference<PartitioningStrategy> reference, RingSurvey survey) throws UsageException {
        return locate(reference).build(survey.availableShards());
    }

    private PartitioningStrategy locate(ServiceReference<PartitioningStrategy> reference) throws UsageException {
        PartitioningStrategy strategy = context.locateService("strategies", reference);
        if (strategy == null) {
            throw new UsageException("strategy " + reference.getProperty(PartitioningStrategy.NAME)
                    + " went away while starting");
        }
        return strategy;
    }

    private ServiceReference<PartitioningStrategy> strategy(String name) throws UsageException {
        return strategy(name, "unknown strategy '" + name + "'");
    }

    /** The strategy service of this name; else a usage error saying {@code unknown} and listing the deployed ones. */
    private ServiceReference<PartitioningStrategy> strategy(String name, String unknown) throws UsageException {
        List<ServiceReference<PartitioningStrategy>> available = strategies;
        return available.stream()
                .filter(reference -> name.equals(reference.getProperty(PartitioningStrategy.NAME)))
                .findFirst()
                .orElseThrow(() -> new UsageException(unknown + "; available: "
                        + String.join(", ", new TreeSet<>(available.stream()
                                .map(reference -> String.valueOf(reference.getProperty(PartitioningStrategy.NAME)))
                                .toList()))));
    }

    /**
     * Sets the strategy's tokens per shard through Config Admin, the way an operator would, and waits
     * until the strategy service publishes the new value.
     */
    private void configureTokens(ServiceReference<PartitioningStrategy> reference, int tokens) throws UsageException {
        String name = String.valueOf(reference.getProperty(PartitioningStrategy.NAME));
        if (reference.getProperty(TOKENS_PER_SHARD) == null) {
            throw new UsageException("strategy " + name + " has no " + TOKENS_PER_SHARD + " setting for --tokens");
        }
        ConfigurationAdmin admin = configurationAdmin;
        ServiceComponentRuntime runtime = componentRuntime;
        Object componentName = reference.getProperty(ComponentConstants.COMPONENT_NAME);
        ComponentDescriptionDTO description = runtime == null || componentName == null ? null
                : runtime.getComponentDescriptionDTO(reference.getBundle(), componentName.toString());
        if (admin == null || description == null) {
            throw new UsageException("--tokens needs Config Admin and a DS-managed strategy; " + name + " has neither");
        }
        try {
            Configuration configuration = admin.getConfiguration(description.configurationPid[0], "?");
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put(TOKENS_PER_SHARD, tokens);
            configuration.update(properties);
        } catch (IOException e) {
            throw new UsageException("cannot configure " + name + ": " + e.getMessage());
        }
        Instant deadline = Instant.now().plus(RECONFIGURATION_TIMEOUT);
        while (!Objects.equals(reference.getProperty(TOKENS_PER_SHARD), tokens)) {
            if (Instant.now().isAfter(deadline) || reference.getBundle() == null) {
                throw new UsageException("strategy " + name + " did not take " + TOKENS_PER_SHARD + "=" + tokens);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UsageException("interrupted while configuring " + name);
            }
        }
    }
}
