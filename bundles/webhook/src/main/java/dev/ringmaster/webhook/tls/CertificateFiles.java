package dev.ringmaster.webhook.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Optional;

/**
 * Watches a certificate and key file pair by content. Kubernetes updates a mounted Secret by
 * swapping a {@code ..data} symlink to a new directory, so the files' own modification times and
 * file-system events say nothing reliable; comparing what the paths resolve to now with what was
 * read last does. The files are small, so reading them on every poll costs next to nothing.
 *
 * <p>Not thread-safe: one poller calls {@link #poll()}.
 */
public final class CertificateFiles {

    /** What a poll found. */
    public sealed interface Change {
    }

    /** Same contents as last time (and last time's verdict stands). */
    public record Unchanged() implements Change {
    }

    /** New contents that form a valid pair. */
    public record Accepted(KeyMaterial material) implements Change {
    }

    /**
     * New contents that cannot serve TLS, or still-bad contents with a new reason (e.g. time passed).
     *
     * @param missing whether a file is not there at all (yet): nothing to judge, rather than a bad pair
     */
    public record Rejected(String problem, boolean missing) implements Change {

        public Rejected(String problem) {
            this(problem, false);
        }
    }

    private static final Unchanged UNCHANGED = new Unchanged();

    private final Path certificateFile;
    private final Path keyFile;
    private final Clock clock;

    private byte[] lastCertificate;
    private byte[] lastKey;
    /** The reason the last contents were rejected; null after an accepted pair. */
    private String lastProblem;
    private boolean polled;

    public CertificateFiles(Path certificateFile, Path keyFile, Clock clock) {
        this.certificateFile = certificateFile;
        this.keyFile = keyFile;
        this.clock = clock;
    }

    /**
     * Reads both files and judges them if they changed since the last poll, or if the last ones were
     * rejected (a certificate not yet valid becomes valid without changing).
     */
    public Change poll() {
        byte[] certificate = readOrNull(certificateFile);
        byte[] key = readOrNull(keyFile);
        boolean changed = !polled || !Arrays.equals(certificate, lastCertificate) || !Arrays.equals(key, lastKey);
        if (!changed && lastProblem == null) {
            return UNCHANGED;
        }
        Change change = judge(certificate, key);
        if (change instanceof Rejected) {
            // A rotation swaps both files at once, but two reads can straddle the swap: read again.
            byte[] certificateAgain = readOrNull(certificateFile);
            byte[] keyAgain = readOrNull(keyFile);
            if (!Arrays.equals(certificate, certificateAgain) || !Arrays.equals(key, keyAgain)) {
                certificate = certificateAgain;
                key = keyAgain;
                change = judge(certificate, key);
            }
        }
        polled = true;
        lastCertificate = certificate;
        lastKey = key;
        if (change instanceof Rejected rejected) {
            if (!changed && rejected.problem().equals(lastProblem)) {
                return UNCHANGED;
            }
            lastProblem = rejected.problem();
        } else {
            lastProblem = null;
        }
        return change;
    }

    private Change judge(byte[] certificate, byte[] key) {
        try {
            if (certificate == null) {
                return new Rejected(certificateFile + ": no such readable file", true);
            }
            if (key == null) {
                return new Rejected(keyFile + ": no such readable file", true);
            }
            return new Accepted(KeyMaterial.parse(certificate, certificateFile.toString(), key, keyFile.toString(),
                    clock.instant()));
        } catch (KeyMaterialException e) {
            return new Rejected(e.getMessage());
        }
    }

    /** The reason the current files are rejected, if they are. */
    public Optional<String> problem() {
        return Optional.ofNullable(lastProblem);
    }

    private static byte[] readOrNull(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
    }
}
