package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackage;
import static org.ops4j.pax.exam.CoreOptions.workingDirectory;

import dev.ringmaster.itests.hotswap.ModuloStrategy;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import dev.ringmaster.itests.support.Until;
import dev.ringmaster.launcher.command.Command;
import dev.ringmaster.launcher.run.RunFlag;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.options.UrlProvisionOption;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.Version;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Boots exactly the bundles of the unpacked distribution ({@code boot/} at start level 1,
 * {@code bundle/} at 2) in Felix and swaps strategies in and out of the running framework. One
 * framework serves the whole class and is never restarted; a test that changes it puts it back.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StrategyHotSwapIT {

    private static final String CONSISTENT_HASH = "consistent-hash";
    private static final String RENDEZVOUS = "rendezvous";
    private static final String RENDEZVOUS_BSN = "dev.ringmaster.ring.rendezvous";
    private static final String JUMP_HASH = "jump-hash";
    private static final String JUMP_HASH_BSN = "org.example.ringmaster.jumphash";
    private static final String CONSISTENT_PID = "dev.ringmaster.ring.consistent";
    private static final String TOKENS_PER_SHARD = "tokensPerShard";
    private static final String SIMULATE = "(" + Command.NAME + "=simulate)";

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return distributionOptions(getClass()).toArray(Option[]::new);
    }

    /**
     * The distribution's boot/ and bundle/ jars at their start levels as the launcher installs them,
     * with a working directory and framework storage of the test class's own; for every Pax Exam test
     * of the distribution.
     */
    static List<Option> distributionOptions(Class<?> test) {
        Path work = Distribution.work("pax-exam").resolve(test.getSimpleName());
        return List.of(
                distributionFolder("boot", 1),
                distributionFolder("bundle", 2),
                // what the launcher exports from its class path to the bundles
                systemPackage(Command.class.getPackageName() + ";version=1.0.0"),
                systemPackage(RunFlag.class.getPackageName() + ";version=1.1.0"),
                workingDirectory(work.toString()),
                frameworkProperty(Constants.FRAMEWORK_STORAGE).value(work.resolve("felix-cache").toString()),
                frameworkProperty(Constants.FRAMEWORK_STORAGE_CLEAN).value(Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT),
                cleanCaches(true),
                frameworkProperty("felix.log.level").value("1"),
                // File Install (in boot/) watches nothing here; tests install and configure directly
                frameworkProperty("felix.fileinstall.dir").value(work.resolve("unwatched").toString()),
                // The framework's parent class loader is this test class path, not the launcher's two
                // jars: without this, Felix hands classes and resources that bundles do not find
                // (e.g. ServiceLoader's look-ups for slf4j providers) to the test class path.
                frameworkProperty("felix.bootdelegation.implicit").value("false"),
                junitBundles(),
                slf4jForPaxExam());
    }

    /**
     * Every jar of a distribution folder, as a file: URL, at the folder's start level; started unless
     * it is a fragment, as the launcher does it.
     */
    private static Option distributionFolder(String folder, int startLevel) {
        return composite(Distribution.jars(folder).stream()
                .map(jar -> installed(jar).startLevel(startLevel))
                .toArray(Option[]::new));
    }

    private static UrlProvisionOption installed(Path jar) {
        UrlProvisionOption option = bundle(jar.toUri().toString());
        return manifestHeader(jar, Constants.FRAGMENT_HOST) == null ? option : option.noStart();
    }

    /**
     * Pax Exam's own bundles import org.slf4j [1.4,2); with pax.exam.logging=none nothing of Pax Exam
     * provides it. The distribution's slf4j-api 2 also exports org.slf4j as 1.7.36, so as long as
     * the distribution ships slf4j nothing is added; otherwise slf4j-api and slf4j-simple 1.7.36.
     */
    private static Option slf4jForPaxExam() {
        boolean shipped = Stream.of("boot", "bundle")
                .flatMap(folder -> Distribution.jars(folder).stream())
                .anyMatch(jar -> exportsPackage(jar, "org.slf4j"));
        if (shipped) {
            return composite();
        }
        return composite(Distribution.frameworkLoggingBundles().stream()
                .map(StrategyHotSwapIT::installed)
                .toArray(Option[]::new));
    }

    private static boolean exportsPackage(Path jar, String packageName) {
        String exports = manifestHeader(jar, Constants.EXPORT_PACKAGE);
        return exports != null && Pattern.compile("(^|[,;])\\s*" + Pattern.quote(packageName) + "\\s*([,;]|$)")
                .matcher(exports).find();
    }

    private static String manifestHeader(Path jar, String header) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            return manifest == null ? null : manifest.getMainAttributes().getValue(header);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    public void theDistributionsBundlesAreActiveAtTheirStartLevels() {
        Set<Long> distribution = new HashSet<>();
        for (String folder : List.of("boot", "bundle")) {
            int startLevel = folder.equals("boot") ? 1 : 2;
            for (Path jar : Distribution.jars(folder)) {
                Bundle bundle = context.getBundle(jar.toUri().toString());
                assertNotNull(folder + "/" + jar.getFileName() + " is installed", bundle);
                distribution.add(bundle.getBundleId());
                if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                    assertEquals(bundle.getSymbolicName() + " is active", Bundle.ACTIVE, bundle.getState());
                } else {
                    assertEquals(bundle.getSymbolicName() + " is attached", Bundle.RESOLVED, bundle.getState());
                }
                assertEquals(bundle.getSymbolicName() + "'s start level", startLevel,
                        bundle.adapt(BundleStartLevel.class).getStartLevel());
            }
        }
        // what the test harness adds must not change how the distribution's bundles are wired
        for (long id : distribution) {
            Bundle bundle = context.getBundle(id);
            for (BundleWire wire : bundle.adapt(BundleWiring.class).getRequiredWires(null)) {
                Bundle provider = wire.getProvider().getBundle();
                assertTrue(bundle.getSymbolicName() + " is wired to " + provider.getSymbolicName()
                                + ", which the distribution does not ship: " + wire.getCapability(),
                        provider.getBundleId() == 0 || distribution.contains(provider.getBundleId()));
            }
        }
        for (Bundle bundle : context.getBundles()) {
            String name = String.valueOf(bundle.getSymbolicName());
            assertTrue("pax.exam.logging=none keeps pax-logging out, found " + name,
                    !name.startsWith("org.ops4j.pax.logging"));
        }
    }

    @Test
    public void bothBuiltInStrategiesAreRegistered() {
        awaitStrategy(CONSISTENT_HASH);
        awaitStrategy(RENDEZVOUS);
        assertEquals(Set.of(CONSISTENT_HASH, RENDEZVOUS), strategyNames());
        assertEquals("consistent-hash publishes its default tokensPerShard", 100,
                awaitStrategy(CONSISTENT_HASH).getProperty(TOKENS_PER_SHARD));
    }

    @Test
    public void simulateRunsWithBothStrategies() {
        awaitStrategy(CONSISTENT_HASH);
        awaitStrategy(RENDEZVOUS);
        ServiceReference<Command> reference = awaitService(Command.class, SIMULATE);
        Command simulate = context.getService(reference);
        try {
            for (String strategy : List.of(CONSISTENT_HASH, RENDEZVOUS)) {
                assertSimulates(simulate, strategy);
            }
        } finally {
            context.ungetService(reference);
        }
    }

    /**
     * Uninstalls the rendezvous bundle and installs it again from the distribution's {@code bundle/}
     * folder. The simulate command binds strategies with a dynamic, greedy reference, so the same
     * component instance must serve throughout.
     */
    @Test
    public void rendezvousCanBeUninstalledAndReinstalledUnderTheSameSimulateCommand() throws Exception {
        ServiceReference<Command> commandReference = awaitService(Command.class, SIMULATE);
        Object commandId = commandReference.getProperty(Constants.SERVICE_ID);
        // held until the end: a delayed component whose service nobody uses may be disposed of
        Command simulate = context.getService(commandReference);
        try {
            ServiceReference<PartitioningStrategy> rendezvousReference = awaitStrategy(RENDEZVOUS);
            Bundle rendezvous = Distribution.installed(context, RENDEZVOUS_BSN).orElseThrow();
            assertSame("rendezvous is registered by its bundle", rendezvous, rendezvousReference.getBundle());
            assertSimulates(simulate, RENDEZVOUS);

            rendezvous.stop();
            rendezvous.uninstall();
            Until.holds(Until.IN_PROCESS, "the rendezvous service to go away",
                    () -> strategy(RENDEZVOUS).isEmpty());
            assertNull("the old rendezvous registration is gone", rendezvousReference.getBundle());
            assertEquals(Set.of(CONSISTENT_HASH), strategyNames());
            assertSameCommand(simulate, commandId);
            assertSimulates(simulate, CONSISTENT_HASH);
            Run missing = run(simulate, "--strategy", RENDEZVOUS, "--shards", "3", "--objects", "1000", "--json");
            assertEquals(missing.toString(), Command.USAGE_ERROR, missing.exit());
            assertTrue(missing.toString(), missing.err().startsWith("ringmaster simulate: "));
            assertTrue(missing.toString(), missing.err().contains("unknown strategy 'rendezvous'"));
            assertEquals(missing.toString(), "", missing.out());
            assertSameCommand(simulate, commandId);

            Bundle reinstalled = Distribution.installRendezvous(context);
            ServiceReference<PartitioningStrategy> again = awaitStrategy(RENDEZVOUS);
            assertSame("rendezvous is registered by the reinstalled bundle", reinstalled, again.getBundle());
            assertNotEquals(rendezvous.getBundleId(), reinstalled.getBundleId());
            assertEquals(Set.of(CONSISTENT_HASH, RENDEZVOUS), strategyNames());
            assertSameCommand(simulate, commandId);
            assertSimulates(simulate, RENDEZVOUS);
            assertSimulates(simulate, CONSISTENT_HASH);
            assertSameCommand(simulate, commandId);
        } finally {
            context.ungetService(commandReference);
            if (Distribution.installed(context, RENDEZVOUS_BSN).isEmpty()) {
                Distribution.installRendezvous(context); // leave the framework as the distribution boots it
            }
        }
    }

    /**
     * A new version of a strategy bundle replaces the old one in place (Bundle.update, as File
     * Install does when a jar in deploy/ changes): same bundle, new version, new code registered under
     * the same strategy name, and the simulate command, which never stops serving, places with the new
     * code at once.
     */
    @Test
    public void anUpdatedStrategyBundleReplacesTheOldOneInPlace() throws Exception {
        ServiceReference<Command> commandReference = awaitService(Command.class, SIMULATE);
        Object commandId = commandReference.getProperty(Constants.SERVICE_ID);
        Command simulate = context.getService(commandReference);
        Bundle plugin = context.installBundle(Distribution.jumpHashPlugin().toUri().toString());
        try {
            plugin.start();
            ServiceReference<PartitioningStrategy> before = awaitStrategy(JUMP_HASH);
            Map<String, Integer> placedBefore = assertSimulates(simulate, JUMP_HASH).counts("perShard");
            Version oldVersion = plugin.getVersion();
            Version newVersion = new Version(oldVersion.getMajor(), oldVersion.getMinor(), oldVersion.getMicro() + 1);

            plugin.update(new ByteArrayInputStream(rebuilt(Distribution.jumpHashPlugin(), newVersion, ModuloStrategy.class)));

            Until.holds(Until.IN_PROCESS, "jump-hash registered by the updated bundle", () -> strategy(JUMP_HASH)
                    .filter(reference -> !reference.equals(before)).isPresent());
            assertEquals(newVersion, plugin.getVersion());
            assertSame(plugin, awaitStrategy(JUMP_HASH).getBundle());
            assertEquals("one jump-hash bundle", 1, Arrays.stream(context.getBundles())
                    .filter(bundle -> JUMP_HASH_BSN.equals(bundle.getSymbolicName())).count());
            assertSameCommand(simulate, commandId);
            Map<String, Integer> placedAfter = assertSimulates(simulate, JUMP_HASH).counts("perShard");
            assertEquals("the new code places", moduloPlacements(), placedAfter);
            assertNotEquals("and not as the old code did", placedBefore, placedAfter);
        } finally {
            plugin.uninstall();
            context.ungetService(commandReference);
        }
    }

    /** Objects per shard as {@link ModuloStrategy} places simulate's keys over shard-0, shard-1, shard-2. */
    private static Map<String, Integer> moduloPlacements() {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < 1000; i++) {
            counts.merge("shard-" + ModuloStrategy.index("/ConfigMap/ns-" + (i % 100) + "/obj-" + i, 3), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * The plug-in jar as a rebuild with other code would be: another Bundle-Version, and its component
     * implemented by {@code code} (whose class files are added) instead of the shipped class.
     */
    private static byte[] rebuilt(Path jar, Version version, Class<?> code) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar))) {
            Manifest manifest = new Manifest(in.getManifest());
            manifest.getMainAttributes().putValue(Constants.BUNDLE_VERSION, version.toString());
            try (JarOutputStream out = new JarOutputStream(bytes, manifest)) {
                for (JarEntry entry = in.getNextJarEntry(); entry != null; entry = in.getNextJarEntry()) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    if (entry.getName().startsWith("OSGI-INF/") && entry.getName().endsWith(".xml")) {
                        String component = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        out.write(component.replaceAll("implementation class=\"[^\"]+\"",
                                "implementation class=\"" + code.getName() + "\"").getBytes(StandardCharsets.UTF_8));
                    } else {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
                for (Class<?> type : Stream.concat(Stream.of(code), Arrays.stream(code.getDeclaredClasses())).toList()) {
                    String file = type.getName().replace('.', '/') + ".class";
                    out.putNextEntry(new JarEntry(file));
                    try (var classFile = code.getClassLoader().getResourceAsStream(file)) {
                        classFile.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
        return bytes.toByteArray();
    }

    /**
     * A Config Admin update of consistent-hash's tokensPerShard is a service modification: the
     * service property changes, the registration stays the same.
     */
    @Test
    public void tokensPerShardChangesThroughConfigAdminWithoutReRegistration() throws Exception {
        ServiceReference<ConfigurationAdmin> adminReference = awaitService(ConfigurationAdmin.class, null);
        ConfigurationAdmin admin = context.getService(adminReference);
        ServiceReference<PartitioningStrategy> reference = awaitStrategy(CONSISTENT_HASH);
        Object serviceId = reference.getProperty(Constants.SERVICE_ID);
        assertEquals(100, reference.getProperty(TOKENS_PER_SHARD));
        ServiceReference<Command> commandReference = awaitService(Command.class, SIMULATE);
        Command simulate = context.getService(commandReference);

        org.osgi.service.cm.Configuration configuration = admin.getConfiguration(CONSISTENT_PID, "?");
        Dictionary<String, Object> previous = configuration.getProperties();
        try {
            Json withDefault = assertSimulates(simulate, CONSISTENT_HASH);
            configuration.update(new Hashtable<>(Map.of(TOKENS_PER_SHARD, 7)));
            Until.holds(Until.IN_PROCESS, "consistent-hash to publish tokensPerShard=7",
                    () -> Integer.valueOf(7).equals(reference.getProperty(TOKENS_PER_SHARD)));

            Collection<ServiceReference<PartitioningStrategy>> now = strategies(CONSISTENT_HASH);
            assertEquals("one consistent-hash service", 1, now.size());
            ServiceReference<PartitioningStrategy> current = now.iterator().next();
            assertEquals("the same registration", reference, current);
            assertEquals("the same service.id", serviceId, current.getProperty(Constants.SERVICE_ID));
            assertNotNull("still registered", reference.getBundle());

            Json withSeven = assertSimulates(simulate, CONSISTENT_HASH);
            assertNotEquals("7 tokens per shard place objects differently from 100",
                    withDefault.counts("perShard"), withSeven.counts("perShard"));
        } finally {
            context.ungetService(commandReference);
            if (previous == null) {
                configuration.delete();
            } else {
                configuration.update(previous);
            }
            context.ungetService(adminReference);
            Until.holds(Until.IN_PROCESS, "consistent-hash to be back to tokensPerShard=100",
                    () -> strategies(CONSISTENT_HASH).stream()
                            .anyMatch(ref -> Integer.valueOf(100).equals(ref.getProperty(TOKENS_PER_SHARD))));
        }
    }

    /** Runs simulate with 3 shards and 1000 objects and checks the JSON report. */
    private static Json assertSimulates(Command simulate, String strategy) {
        Run run = run(simulate, "--strategy", strategy, "--shards", "3", "--objects", "1000", "--json");
        assertEquals(run.toString(), 0, run.exit());
        assertEquals(run.toString(), "", run.err());
        Json json = Json.parse(run.out());
        assertEquals(strategy, json.string("strategy"));
        assertEquals(3, json.integer("shardsBefore"));
        assertEquals(3, json.integer("shardsAfter"));
        assertEquals(1000, json.integer("objects"));
        Map<String, Integer> perShard = json.counts("perShard");
        assertEquals(Set.of("shard-0", "shard-1", "shard-2"), perShard.keySet());
        assertEquals(1000, perShard.values().stream().mapToInt(Integer::intValue).sum());
        assertEquals("no fleet change moves nothing", 0.0, json.number("movedFraction"), 0.0);
        assertTrue(json.toString(), json.number("peakToMean") >= 1.0);
        assertTrue(json.toString(), json.number("minToMean") <= 1.0);
        return json;
    }

    private void assertSameCommand(Command simulate, Object commandId) {
        ServiceReference<Command> reference = awaitService(Command.class, SIMULATE);
        assertEquals("the simulate command was not re-registered", commandId,
                reference.getProperty(Constants.SERVICE_ID));
        Command current = context.getService(reference);
        try {
            assertSame("the simulate command was not recreated", simulate, current);
        } finally {
            context.ungetService(reference);
        }
    }



    private ServiceReference<PartitioningStrategy> awaitStrategy(String name) {
        return Until.value(Until.IN_PROCESS, "the " + name + " strategy service", () -> strategy(name));
    }

    private Optional<ServiceReference<PartitioningStrategy>> strategy(String name) {
        return strategies(name).stream().findFirst();
    }

    private Collection<ServiceReference<PartitioningStrategy>> strategies(String name) {
        return references(PartitioningStrategy.class, "(" + PartitioningStrategy.NAME + "=" + name + ")");
    }

    private Set<String> strategyNames() {
        return references(PartitioningStrategy.class, null).stream()
                .map(reference -> String.valueOf(reference.getProperty(PartitioningStrategy.NAME)))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private <S> ServiceReference<S> awaitService(Class<S> type, String filter) {
        return Until.value(Until.IN_PROCESS,
                "a " + type.getSimpleName() + " service" + (filter == null ? "" : " " + filter),
                () -> references(type, filter).stream().findFirst());
    }

    private <S> Collection<ServiceReference<S>> references(Class<S> type, String filter) {
        try {
            return new HashSet<>(context.getServiceReferences(type, filter));
        } catch (InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static Run run(Command command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = command.run(List.of(args), outStream, errStream);
        }
        return new Run(List.of(args), exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(List<String> args, int exit, String out, String err) {
        @Override
        public String toString() {
            return "simulate " + String.join(" ", args) + " -> exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
        }
    }
}
