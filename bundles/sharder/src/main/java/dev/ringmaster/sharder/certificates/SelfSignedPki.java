package dev.ringmaster.sharder.certificates;

import dev.ringmaster.webhook.tls.CertificateBuilder;
import dev.ringmaster.webhook.tls.KeyMaterial;
import dev.ringmaster.webhook.tls.Pem;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sharder's own small PKI, as pure functions of the time they are given: a long-lived CA, the
 * webhook's serving certificates it signs, and the judgements of what is in the Secrets (is this CA
 * usable, is this certificate due for renewal). Keys are ECDSA P-256; certificates come from
 * {@link CertificateBuilder}.
 *
 * <p>A certificate is due for renewal when less than a third of its lifetime is left. Both kinds start
 * {@link #BACKDATE} before they are made, so a replica or API server whose clock is a little behind
 * accepts them at once.
 */
public final class SelfSignedPki {

    /** How far before "now" a new certificate's validity starts. */
    public static final Duration BACKDATE = Duration.ofMinutes(5);

    /**
     * A CA: its certificate and key, and the bundle the API server trusts: this certificate first, then
     * earlier CA certificates still valid (a renewed CA keeps the certificates its predecessor signed
     * trusted until they are renewed in turn).
     */
    public record Authority(X509Certificate certificate, PrivateKey key, List<X509Certificate> bundle) {

        public Authority {
            Objects.requireNonNull(certificate, "certificate");
            Objects.requireNonNull(key, "key");
            bundle = List.copyOf(bundle);
            if (bundle.isEmpty() || !bundle.get(0).equals(certificate)) {
                throw new IllegalArgumentException("the bundle starts with the CA's own certificate");
            }
        }

        /** The bundle as PEM: what {@code ca.crt} holds and the webhook configurations' {@code caBundle}. */
        public byte[] bundlePem() {
            return Pem.certificates(bundle).getBytes(StandardCharsets.US_ASCII);
        }

        public byte[] certificatePem() {
            return Pem.certificates(List.of(certificate)).getBytes(StandardCharsets.US_ASCII);
        }

        public byte[] keyPem() {
            return Pem.privateKey(key).getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** A serving certificate (the webhook's TLS server certificate) and its key. */
    public record Serving(X509Certificate certificate, PrivateKey key) {

        public byte[] certificatePem() {
            return Pem.certificates(List.of(certificate)).getBytes(StandardCharsets.US_ASCII);
        }

        public byte[] keyPem() {
            return Pem.privateKey(key).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final CertificateBuilder builder;
    private final SecureRandom random;
    private final Duration caValidity;
    private final Duration certificateValidity;

    /**
     * @param caValidity          lifetime of a new CA
     * @param certificateValidity lifetime of a new serving certificate (capped at its CA's end)
     */
    public SelfSignedPki(Duration caValidity, Duration certificateValidity, SecureRandom random) {
        this.caValidity = Objects.requireNonNull(caValidity, "caValidity");
        this.certificateValidity = Objects.requireNonNull(certificateValidity, "certificateValidity");
        this.random = Objects.requireNonNull(random, "random");
        this.builder = new CertificateBuilder(random);
        if (certificateValidity.compareTo(Duration.ofMinutes(10)) < 0) {
            throw new IllegalArgumentException("a serving certificate must be valid for at least 10 minutes, not "
                    + certificateValidity);
        }
        if (caValidity.compareTo(certificateValidity) < 0) {
            throw new IllegalArgumentException("the CA (" + caValidity + ") must be valid at least as long as the "
                    + "serving certificates it signs (" + certificateValidity + ")");
        }
    }

    /**
     * A new self-signed CA valid from now, trusted together with the certificates of {@code keep} that
     * are still valid then (the CA it replaces, when renewed).
     */
    public Authority newAuthority(String commonName, Instant now, Collection<X509Certificate> keep)
            throws GeneralSecurityException {
        KeyPair keys = newKeyPair();
        X509Certificate certificate = builder.build(new CertificateBuilder.Spec(commonName, keys.getPublic(), null,
                keys.getPrivate(), now.minus(BACKDATE), now.plus(caValidity), true, List.of(), List.of()));
        List<X509Certificate> bundle = new ArrayList<>();
        bundle.add(certificate);
        keep.stream().filter(old -> !expired(old, now) && !bundle.contains(old)).forEach(bundle::add);
        return new Authority(certificate, keys.getPrivate(), bundle);
    }

    /** A serving certificate for these DNS names (the first is also the common name), signed by the CA. */
    public Serving issue(Authority ca, List<String> dnsNames, Instant now) throws GeneralSecurityException {
        KeyPair keys = newKeyPair();
        Instant notAfter = now.plus(certificateValidity);
        Instant caEnd = ca.certificate().getNotAfter().toInstant();
        if (notAfter.isAfter(caEnd)) {
            notAfter = caEnd; // a certificate never outlives its issuer
        }
        X509Certificate certificate = builder.build(new CertificateBuilder.Spec(dnsNames.get(0), keys.getPublic(),
                ca.certificate(), ca.key(), now.minus(BACKDATE), notAfter, false, dnsNames, List.of()));
        return new Serving(certificate, keys.getPrivate());
    }

    /** When less than a third of the certificate's lifetime is left. */
    public static Instant renewalTime(X509Certificate certificate) {
        Instant notBefore = certificate.getNotBefore().toInstant();
        Instant notAfter = certificate.getNotAfter().toInstant();
        return notAfter.minus(Duration.between(notBefore, notAfter).dividedBy(3));
    }

    public static boolean renewalDue(X509Certificate certificate, Instant now) {
        return !now.isBefore(renewalTime(certificate));
    }

    public static boolean expired(X509Certificate certificate, Instant now) {
        return now.isAfter(certificate.getNotAfter().toInstant());
    }

    /**
     * Why this CA cannot sign, if it cannot: not a CA certificate, the key is not its key, expired.
     */
    public static Optional<String> unusableAuthority(X509Certificate certificate, PrivateKey key, Instant now) {
        if (certificate.getBasicConstraints() < 0) {
            return Optional.of("the certificate is not a CA certificate (no basicConstraints cA)");
        }
        if (!KeyMaterial.belongTogether(certificate.getPublicKey(), key)) {
            return Optional.of("the key does not belong to the certificate");
        }
        if (expired(certificate, now)) {
            return Optional.of("the CA certificate expired at " + certificate.getNotAfter().toInstant());
        }
        return Optional.empty();
    }

    /**
     * Why this serving certificate cannot be served for these names under this CA bundle, if it cannot:
     * the key is not its key, it expired, it names other hosts, no CA of the bundle signed it.
     */
    public static Optional<String> unusableServing(X509Certificate certificate, PrivateKey key, List<String> dnsNames,
            List<X509Certificate> bundle, Instant now) {
        if (!KeyMaterial.belongTogether(certificate.getPublicKey(), key)) {
            return Optional.of("the key does not belong to the certificate");
        }
        if (expired(certificate, now)) {
            return Optional.of("the certificate expired at " + certificate.getNotAfter().toInstant());
        }
        Set<String> names = dnsNames(certificate);
        if (!names.equals(new TreeSet<>(dnsNames))) {
            return Optional.of("the certificate names " + names + ", not " + new TreeSet<>(dnsNames));
        }
        if (bundle.stream().noneMatch(ca -> signedBy(certificate, ca))) {
            return Optional.of("no CA of the CA bundle signed the certificate (issuer "
                    + certificate.getIssuerX500Principal().getName() + ")");
        }
        return Optional.empty();
    }

    public static boolean signedBy(X509Certificate certificate, X509Certificate ca) {
        try {
            certificate.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** The subjectAltName DNS names of the certificate. */
    public static Set<String> dnsNames(X509Certificate certificate) {
        Set<String> names = new TreeSet<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> name : alternatives) {
                    if (Integer.valueOf(2).equals(name.get(0))) {
                        names.add(String.valueOf(name.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no names it can read: none
        }
        return names;
    }

    private KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
        return generator.generateKeyPair();
    }
}
