package dev.ringmaster.ring.testing;

import aQute.bnd.differ.Baseline;
import aQute.bnd.differ.DiffPluginImpl;
import aQute.bnd.header.Parameters;
import aQute.bnd.osgi.Constants;
import aQute.bnd.osgi.Instructions;
import aQute.bnd.osgi.Jar;
import aQute.bnd.osgi.Processor;
import aQute.bnd.service.diff.Tree;
import aQute.lib.json.JSONCodec;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Semantic-version check of a bundle's exported packages: bnd's baseline of the classes just built
 * against the API recorded at the last release, stored as text ({@code api-baseline.json}) because
 * no earlier release sits in a repository to compare with.
 */
public final class ApiBaseline {

    /** Set to {@code true} (e.g. {@code -Dringmaster.api.baseline.update=true}) at a release to record the API. */
    public static final String UPDATE_PROPERTY = "ringmaster.api.baseline.update";

    /** What is stored: the exports and bnd's API tree of a released bundle. */
    public static class Record {
        public String exports;
        public Tree.Data api;
    }

    private ApiBaseline() {
    }

    /**
     * Baselines the bundle built in {@code classes} (which must hold bnd's manifest) against
     * {@code baselineFile}, or records it there when {@link #UPDATE_PROPERTY} is set.
     *
     * @return one line per exported package whose version does not match its changes; empty if all do
     */
    public static List<String> mismatches(Path classes, Path baselineFile) throws Exception {
        DiffPluginImpl differ = new DiffPluginImpl();
        try (Jar jar = new Jar(classes.toFile()); Processor reporter = new Processor()) {
            String exports = jar.getManifest().getMainAttributes().getValue(Constants.EXPORT_PACKAGE);
            Tree api = differ.tree(jar);
            if (Boolean.getBoolean(UPDATE_PROPERTY)) {
                Record record = new Record();
                record.exports = exports;
                record.api = withoutResources(api.serialize());
                new JSONCodec().enc().indent(" ").to(baselineFile.toFile()).put(record).close();
                return List.of();
            }
            if (!Files.exists(baselineFile)) {
                return List.of("no API baseline at " + baselineFile + "; record one with -D" + UPDATE_PROPERTY + "=true");
            }
            Record released = new JSONCodec().dec().from(baselineFile.toFile()).get(Record.class);
            List<String> mismatches = new ArrayList<>();
            for (Baseline.Info info : new Baseline(reporter, differ).baseline(api, new Parameters(exports),
                    differ.deserialize(released.api), new Parameters(released.exports), new Instructions("*"))) {
                if (info.mismatch) {
                    mismatches.add(info.packageName + " changed (" + info.packageDiff.getDelta() + ") since version "
                            + info.olderVersion + " but is versioned " + info.newerVersion + "; it needs "
                            + info.suggestedVersion + (info.reason == null ? "" : " (" + info.reason.strip() + ")"));
                }
            }
            return mismatches;
        }
    }

    /** Drops the digests of every resource: they change with any edit and say nothing about the API. */
    private static Tree.Data withoutResources(Tree.Data bundle) {
        bundle.children = Arrays.stream(bundle.children)
                .filter(child -> !"<resources>".equals(child.name))
                .toArray(Tree.Data[]::new);
        return bundle;
    }

    /** The conventional location: {@code api-baseline.json} in the module directory. */
    public static Path defaultBaselineFile() {
        return new File("api-baseline.json").toPath();
    }
}
