package dev.ringmaster.delivery;

import dev.ringmaster.webhook.tls.KeyMaterialException;
import dev.ringmaster.webhook.tls.Pem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Jars signed by a trusted signer (docs/operating.md, "Who may change code"): a jar passes only if
 * every entry but the directories and the signature files ({@code META-INF/MANIFEST.MF},
 * {@code META-INF/*.SF}, {@code .RSA}, {@code .DSA}, {@code .EC}, {@code SIG-*}) is signed by a signer
 * that a trusted certificate vouches for: the signer's certificate is one of them, or the certificate
 * chain in its signature validates (PKIX, at the time of the check, no revocation check) up to one of
 * them as trust anchor. The manifest, and so the bundle's headers, is covered by the signature too: a
 * manifest changed after signing fails the check.
 *
 * <p>The jar is read as {@link JarFile} reads it, with verification on: every entry fully, then its code
 * signers. A content changed after signing makes the JDK throw a {@link SecurityException} (digest
 * mismatch); an entry added after signing has no signers. {@code JarFile} reads the zip's central
 * directory, as the OSGi framework does when it runs the bundle, so both see the same entries (a
 * stream reader would see the local headers, which a crafted zip can make differ).
 *
 * <p>Trusted certificates that cannot be read make every jar fail, with the reason: a configured trust
 * that is missing is not an open door.
 */
final class SignedJars implements JarCheck {

    private final Path source;
    private final List<X509Certificate> trusted;
    private final Set<TrustAnchor> anchors;
    private final String problem;

    private SignedJars(Path source, List<X509Certificate> trusted, String problem) {
        this.source = source;
        this.trusted = List.copyOf(trusted);
        this.anchors = trusted.stream().map(certificate -> new TrustAnchor(certificate, null))
                .collect(Collectors.toUnmodifiableSet());
        this.problem = problem;
    }

    /**
     * Trusts the certificates of {@code path}: a PEM file, or a directory whose {@code *.pem} and
     * {@code *.crt} files are read (others, and hidden ones, are ignored). What cannot be read is kept as
     * the {@link #problem()} that refuses every jar.
     */
    static SignedJars trusting(Path path) {
        try {
            return new SignedJars(path, certificates(path), null);
        } catch (KeyMaterialException e) {
            return new SignedJars(path, List.of(), e.getMessage());
        }
    }

    /** Why no jar can pass, if the trusted certificates could not be read. */
    Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    /** The trusted certificates' subjects, or the problem, for the log. */
    String describe() {
        return problem != null ? problem : trusted.size() + " trusted certificate(s) from " + source + ": "
                + trusted.stream().map(certificate -> certificate.getSubjectX500Principal().getName())
                        .collect(Collectors.joining("; "));
    }

    @Override
    public Optional<String> refusal(Delivery.Jar jar) {
        if (problem != null) {
            return Optional.of("no jar is accepted while the trusted certificates (trustedCertificates of "
                    + DeliveryComponent.PID + ") cannot be read: " + problem);
        }
        Path file = null;
        try {
            file = Files.createTempFile("ringmaster-delivery-", ".jar");
            Files.write(file, jar.bytes());
            return check(file);
        } catch (IOException e) {
            return Optional.of("its signature cannot be checked: " + e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // a temporary file left in java.io.tmpdir
                }
            }
        }
    }

    private Optional<String> check(Path file) {
        List<String> entries = new ArrayList<>();
        List<String> unsigned = new ArrayList<>();
        Set<String> distrusted = new LinkedHashSet<>();
        Map<CodeSigner, Optional<String>> verdicts = new HashMap<>();
        try (JarFile jarFile = new JarFile(file.toFile(), true)) {
            for (JarEntry entry : Collections.list(jarFile.entries())) {
                if (entry.isDirectory() || signatureFile(entry.getName())) {
                    continue;
                }
                entries.add(entry.getName());
                try (InputStream content = jarFile.getInputStream(entry)) {
                    content.transferTo(OutputStream.nullOutputStream()); // the digest is checked at the end
                }
                CodeSigner[] signers = entry.getCodeSigners();
                if (signers == null) {
                    unsigned.add(entry.getName());
                    continue;
                }
                List<Optional<String>> reasons = Stream.of(signers)
                        .map(signer -> verdicts.computeIfAbsent(signer, this::distrust)).toList();
                if (reasons.stream().allMatch(Optional::isPresent)) { // no signer of the entry is trusted
                    reasons.forEach(reason -> distrusted.add(reason.orElseThrow()));
                }
            }
        } catch (SecurityException e) {
            return Optional.of("its signature does not match its content (changed after signing): " + e.getMessage());
        } catch (IOException e) {
            return Optional.of("not a jar whose signature can be checked: " + e);
        }
        if (entries.isEmpty()) {
            return Optional.of("it has no entry a signature could cover, so nothing in it is signed");
        }
        if (unsigned.size() == entries.size()) {
            return Optional.of("it is not signed, and only jars signed by a trusted signer run (trustedCertificates)");
        }
        if (!unsigned.isEmpty()) {
            return Optional.of(unsigned.size() + " of its " + entries.size() + " entries are not signed (added after"
                    + " signing?): " + String.join(", ", unsigned.subList(0, Math.min(3, unsigned.size())))
                    + (unsigned.size() > 3 ? ", …" : ""));
        }
        return distrusted.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", distrusted));
    }

    /** Why no trusted certificate vouches for the signer; empty if one does. */
    private Optional<String> distrust(CodeSigner signer) {
        CertPath path = signer.getSignerCertPath();
        X509Certificate certificate = (X509Certificate) path.getCertificates().get(0);
        try {
            if (trusted.contains(certificate)) {
                certificate.checkValidity();
            } else {
                PKIXParameters parameters = new PKIXParameters(anchors);
                parameters.setRevocationEnabled(false);
                CertPathValidator.getInstance("PKIX").validate(path, parameters);
            }
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            return Optional.of("signed by \"" + certificate.getSubjectX500Principal().getName()
                    + "\", which no trusted certificate vouches for: " + e.getMessage());
        }
    }

    /**
     * The files a signature consists of, which it does not cover itself (as the JDK tells them, in
     * {@code META-INF/} itself, not below).
     */
    static boolean signatureFile(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (!upper.startsWith("META-INF/") || upper.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        String file = upper.substring("META-INF/".length());
        return file.equals("MANIFEST.MF") || file.startsWith("SIG-") || file.endsWith(".SF")
                || file.endsWith(".RSA") || file.endsWith(".DSA") || file.endsWith(".EC");
    }

    private static List<X509Certificate> certificates(Path path) throws KeyMaterialException {
        if (!Files.isDirectory(path)) {
            return Pem.readCertificates(path);
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(path)) {
            files = listing.filter(file -> {
                String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
                return !name.startsWith(".") && (name.endsWith(".pem") || name.endsWith(".crt"))
                        && Files.isRegularFile(file);
            }).sorted().toList();
        } catch (IOException e) {
            throw new KeyMaterialException(path + ": the directory cannot be read: " + e, e);
        }
        if (files.isEmpty()) {
            throw new KeyMaterialException(path + ": no .pem or .crt file in the directory");
        }
        List<X509Certificate> certificates = new ArrayList<>();
        for (Path file : files) {
            certificates.addAll(Pem.readCertificates(file));
        }
        return certificates;
    }
}
