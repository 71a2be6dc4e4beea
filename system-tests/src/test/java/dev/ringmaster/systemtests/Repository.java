package dev.ringmaster.systemtests;

import java.nio.file.Path;

/** Files of the repository that the tests check against the code (manifests/, the distribution's etc/). */
final class Repository {

    /** The repository's root: the parent of this module ({@code basedir}, set by Surefire). */
    static final Path ROOT = Path.of(System.getProperty("basedir", ".")).resolve("..").toAbsolutePath().normalize();

    private Repository() {
    }

    static Path resolve(String path) {
        return ROOT.resolve(path);
    }
}
