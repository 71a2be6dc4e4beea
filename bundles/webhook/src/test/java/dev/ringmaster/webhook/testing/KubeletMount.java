package dev.ringmaster.webhook.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A directory updated the way the kubelet updates a Secret volume: {@code tls.crt} and {@code tls.key}
 * are symlinks through {@code ..data}, itself a symlink to a timestamped directory, replaced atomically
 * by renaming a new symlink over it. The files' own paths never change.
 */
public final class KubeletMount {

    private final Path mount;
    private int version;

    public KubeletMount(Path mount) throws IOException {
        this.mount = Files.createDirectories(mount);
    }

    public Path directory() {
        return mount;
    }

    public void publish(TestPki.Issued issued) throws IOException {
        publish(issued.certificatePem(), issued.keyPem());
    }

    public void publish(String certificatePem, String keyPem) throws IOException {
        Path data = mount.resolve("..2026_01_01_00_00_0" + (++version));
        TestPki.write(data, certificatePem, keyPem);
        Path next = mount.resolve("..data_tmp");
        Files.deleteIfExists(next);
        Files.createSymbolicLink(next, data.getFileName());
        Files.move(next, mount.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        for (String file : new String[] {"tls.crt", "tls.key"}) {
            Path link = mount.resolve(file);
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data", file));
            }
        }
    }
}
