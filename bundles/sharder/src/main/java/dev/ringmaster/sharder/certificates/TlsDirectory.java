package dev.ringmaster.sharder.certificates;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A directory of files replaced all at once, the way the kubelet updates a Secret volume: each file is a
 * symlink through {@code ..data}, itself a symlink to a directory holding one version of all the files;
 * a new version is written into a new directory and {@code ..data} is renamed over atomically. A reader
 * that opens {@code tls.crt} and then {@code tls.key} sees both of one version, or (if a swap falls
 * between the two opens) reads again and sees both of the next: never a certificate and a key that do
 * not belong together for longer than one read. The webhook server reads such a directory
 * ({@code dev.ringmaster.webhook} {@code tlsDir}) and reloads when the content changes.
 *
 * <p>Not thread-safe: one writer.
 */
final class TlsDirectory {

    static final String DATA = "..data";
    private static final String DATA_TMP = "..data_tmp";
    private static final String VERSION_PREFIX = "..ringmaster_";

    private final Path directory;

    TlsDirectory(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    Path path() {
        return directory;
    }

    /**
     * Makes the directory hold exactly these contents under these names (other files stay as they are).
     *
     * @return whether anything was written (false: it held them already)
     * @throws IOException when the directory cannot be written (missing volume, read-only file system)
     */
    boolean publish(Map<String, byte[]> files) throws IOException {
        if (holds(files)) {
            return false;
        }
        Files.createDirectories(directory);
        Path version = Files.createTempDirectory(directory, VERSION_PREFIX);
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            Path written = version.resolve(file.getKey());
            Files.write(written, file.getValue());
            ownerOnly(written);
        }
        // ..data_tmp -> the new version, renamed over ..data: one atomic step for every file
        Path tmp = directory.resolve(DATA_TMP);
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, version.getFileName());
        move(tmp, directory.resolve(DATA));
        for (String name : files.keySet()) {
            Path link = directory.resolve(name);
            Path target = Path.of(DATA, name);
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) {
                continue;
            }
            // a regular file or another link there: replaced by the link, atomically as well
            Path newLink = directory.resolve(".." + name + "_tmp");
            Files.deleteIfExists(newLink);
            Files.createSymbolicLink(newLink, target);
            move(newLink, link);
        }
        removeOldVersions(version);
        return true;
    }

    /** Whether every file already has this content. */
    boolean holds(Map<String, byte[]> files) {
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            try {
                if (!Arrays.equals(Files.readAllBytes(directory.resolve(file.getKey())), file.getValue())) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void removeOldVersions(Path current) throws IOException {
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(directory, VERSION_PREFIX + "*")) {
            for (Path version : versions) {
                if (!version.equals(current) && Files.isDirectory(version, LinkOption.NOFOLLOW_LINKS)) {
                    deleteTree(version);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.deleteIfExists(path);
                } catch (NoSuchFileException | FileAlreadyExistsException e) {
                    // gone already
                }
            }
        }
    }

    /** The private key stays the process's own where the file system knows owners. */
    private static void ownerOnly(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not POSIX: the directory's own protection applies
        }
    }
}
