package dev.ringmaster.clustertests.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The images of the tier, built with buildah from the repository's Dockerfiles and the Maven-built
 * distribution ({@code distribution/target/ringmaster/}), on {@code ../shared/k8s/base-image}'s Java 17
 * runtime (no registry is reachable): {@code buildah bud --pull=never --build-arg BASE=…}. Each is pushed
 * to an OCI archive whose reference is {@code docker.io/library/NAME:TAG}, the name containerd gives
 * {@code NAME:TAG} of a manifest, so that {@code node-up}'s import makes it usable as it is.
 */
final class Images {

    /** What {@code ../shared/k8s/base-image} builds. */
    static final String BASE = "localhost/java17-jre:bookworm";

    private final Path root;
    private final Path work;

    Images(Path root, Path work) {
        this.root = root;
        this.work = work;
    }

    /** One image: its name as the manifests use it, its Dockerfile and build context. */
    record Image(String name, Path dockerfile, Path context) {
    }

    /**
     * The sharder's image ({@code distribution/Dockerfile}) and the example shards'
     * ({@code distribution/examples.Dockerfile}), both with the build context {@code distribution/}.
     */
    List<Image> images(String version) {
        Path distribution = root.resolve("distribution");
        return List.of(new Image("ringmaster:" + version, distribution.resolve("Dockerfile"), distribution),
                new Image("ringmaster-examples:" + version, distribution.resolve("examples.Dockerfile"), distribution));
    }

    /**
     * Builds the image and writes its archive; returns the archive. {@code buildah bud} runs with
     * {@code --isolation chroot}: its default runtime (crun) refuses to run RUN steps on this machine's
     * hybrid cgroup setup ("cgroups in hybrid mode not supported").
     */
    Path build(Image image) {
        Path archive = work.resolve("images").resolve(image.name().replace(':', '_') + ".oci.tar");
        try {
            Files.createDirectories(archive.getParent());
            Files.deleteIfExists(archive);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        String local = "localhost/" + image.name();
        Command.run(root, Map.of(), Duration.ofMinutes(5), List.of("buildah", "bud", "--pull=never", "--isolation",
                "chroot", "--build-arg", "BASE=" + BASE, "-t", local, "-f", image.dockerfile().toString(),
                image.context().toString())).orThrow();
        Command.run(root, Map.of(), Duration.ofMinutes(5), List.of("buildah", "push", "-q", local,
                "oci-archive:" + archive + ":docker.io/library/" + image.name())).orThrow();
        return archive;
    }

    /** Removes the images the tags of earlier builds left behind (unnamed, unused). */
    void pruneDangling() {
        Command.run(root, Map.of(), Duration.ofMinutes(2), List.of("buildah", "rmi", "--prune"));
    }
}
