package dev.ringmaster.webhook.tls;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Writes X.509 v3 certificates (RFC 5280) with the JDK alone: the JDK verifies and parses certificates
 * but has no public API to make one, and Bouncy Castle would add megabytes to the framework for the
 * two kinds the sharder needs, a CA and a TLS server certificate. The TBSCertificate is encoded with
 * {@link Der} and signed with {@link Signature}; the result is parsed back with the JDK's
 * {@link CertificateFactory}, so what leaves here is a certificate the JDK accepts.
 *
 * <p>What it writes: version 3, a random positive 127-bit serial, {@code sha256WithRSAEncryption} or
 * {@code ecdsa-with-SHA256} (by the signing key), the subject as one common name and the issuer as the
 * issuing certificate's subject (its own for a self-signed certificate), validity to
 * the second, the subject's public key as the JDK encodes it ({@link PublicKey#getEncoded()}, a
 * SubjectPublicKeyInfo), and the extensions basicConstraints (critical), keyUsage (critical),
 * extendedKeyUsage serverAuth (server certificates), subjectAltName (DNS names and IP addresses),
 * subjectKeyIdentifier and authorityKeyIdentifier (SHA-1 of the public key bits, RFC 5280 section
 * 4.2.1.2 method 1, as openssl computes it).
 */
public final class CertificateBuilder {

    static final String SHA256_WITH_RSA = "1.2.840.113549.1.1.11";
    static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_ENCIPHERMENT = 2;
    private static final int KEY_CERT_SIGN = 5;
    private static final int CRL_SIGN = 6;
    /** GeneralName choices (RFC 5280 section 4.2.1.6). */
    private static final int DNS_NAME = 2;
    private static final int IP_ADDRESS = 7;

    private final SecureRandom random;

    public CertificateBuilder(SecureRandom random) {
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * One certificate to write.
     *
     * @param subject     the subject's common name
     * @param subjectKey  the key the certificate certifies
     * @param issuer      the issuer's certificate, whose subject becomes the issuer name byte for byte (so a
     *                    verifier matches the two exactly) and whose key the authority key identifier
     *                    names; {@code null} for a self-signed certificate
     * @param signingKey  the issuer's private key (the subject's own for a self-signed certificate)
     * @param notBefore   start of validity
     * @param notAfter    end of validity
     * @param ca          a CA certificate (may sign certificates, not end entities) or a TLS server certificate
     * @param dnsNames    subjectAltName DNS names (server certificates)
     * @param ipAddresses subjectAltName IP addresses (server certificates)
     */
    public record Spec(String subject, PublicKey subjectKey, X509Certificate issuer, PrivateKey signingKey,
            Instant notBefore, Instant notAfter, boolean ca, List<String> dnsNames, List<InetAddress> ipAddresses) {

        public Spec {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(subjectKey, "subjectKey");
            Objects.requireNonNull(signingKey, "signingKey");
            dnsNames = List.copyOf(dnsNames);
            ipAddresses = List.copyOf(ipAddresses);
            if (!notBefore.isBefore(notAfter)) {
                throw new IllegalArgumentException("notBefore " + notBefore + " is not before notAfter " + notAfter);
            }
            if (!ca && dnsNames.isEmpty() && ipAddresses.isEmpty()) {
                throw new IllegalArgumentException("a server certificate needs at least one DNS name or IP address");
            }
        }
    }

    /** Encodes, signs and parses back the certificate. */
    public X509Certificate build(Spec spec) throws GeneralSecurityException {
        byte[] algorithm = signatureAlgorithm(spec.signingKey());
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(2)), // v3
                Der.integer(serial()),
                algorithm,
                spec.issuer() == null ? name(spec.subject()) : spec.issuer().getSubjectX500Principal().getEncoded(),
                Der.sequence(Der.time(spec.notBefore()), Der.time(spec.notAfter())),
                name(spec.subject()),
                spec.subjectKey().getEncoded(),
                Der.explicit(3, Der.sequence(extensions(spec))));
        Signature signer = Signature.getInstance(signatureName(spec.signingKey()));
        signer.initSign(spec.signingKey());
        signer.update(tbs);
        byte[] certificate = Der.sequence(tbs, algorithm, Der.bitString(signer.sign()));
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(certificate));
    }

    /** The key identifier of a public key: SHA-1 of its subjectPublicKey bits (RFC 5280 4.2.1.2, method 1). */
    public static byte[] keyIdentifier(PublicKey key) {
        // SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, subjectPublicKey BIT STRING }
        Der.Reader info = new Der.Reader(key.getEncoded()).next(Der.SEQUENCE, "SubjectPublicKeyInfo").children();
        info.next(Der.SEQUENCE, "SubjectPublicKeyInfo algorithm");
        byte[] bits = info.next(Der.BIT_STRING, "SubjectPublicKeyInfo subjectPublicKey").content();
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(bits, 1, bits.length - 1); // without the unused-bits byte
            return sha1.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    private List<byte[]> extensions(Spec spec) {
        List<byte[]> extensions = new ArrayList<>();
        if (spec.ca()) {
            extensions.add(extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true), Der.integer(0))));
            extensions.add(extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN)));
        } else {
            // cA FALSE is the default, which DER leaves out: an empty sequence
            extensions.add(extension(BASIC_CONSTRAINTS, true, Der.sequence()));
            extensions.add(extension(KEY_USAGE, true, "RSA".equals(spec.subjectKey().getAlgorithm())
                    ? Der.namedBits(DIGITAL_SIGNATURE, KEY_ENCIPHERMENT) : Der.namedBits(DIGITAL_SIGNATURE)));
            extensions.add(extension(EXTENDED_KEY_USAGE, false, Der.sequence(Der.oid(SERVER_AUTH))));
            List<byte[]> names = new ArrayList<>();
            spec.dnsNames().forEach(name -> names.add(Der.implicitPrimitive(DNS_NAME, Der.ascii(name))));
            spec.ipAddresses().forEach(address -> names.add(Der.implicitPrimitive(IP_ADDRESS, address.getAddress())));
            extensions.add(extension(SUBJECT_ALT_NAME, false, Der.sequence(names)));
        }
        extensions.add(extension(SUBJECT_KEY_IDENTIFIER, false, Der.octetString(keyIdentifier(spec.subjectKey()))));
        extensions.add(extension(AUTHORITY_KEY_IDENTIFIER, false,
                Der.sequence(Der.implicitPrimitive(0, keyIdentifier(
                        spec.issuer() == null ? spec.subjectKey() : spec.issuer().getPublicKey())))));
        return extensions;
    }

    /** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }. */
    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }

    /** Name ::= SEQUENCE OF RelativeDistinguishedName, here one RDN holding the common name. */
    private static byte[] name(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8String(commonName))));
    }

    /** Positive, at most 20 octets (RFC 5280 section 4.1.2.2), unpredictable. */
    private BigInteger serial() {
        BigInteger serial;
        do {
            serial = new BigInteger(127, random);
        } while (serial.signum() == 0);
        return serial;
    }

    private static byte[] signatureAlgorithm(PrivateKey key) {
        return switch (key.getAlgorithm()) {
            // RFC 4055: the parameters of the RSA signature algorithms are NULL
            case "RSA" -> Der.sequence(Der.oid(SHA256_WITH_RSA), Der.nullValue());
            // RFC 5758: absent for ECDSA
            case "EC" -> Der.sequence(Der.oid(ECDSA_WITH_SHA256));
            default -> throw new IllegalArgumentException("cannot sign with a " + key.getAlgorithm() + " key");
        };
    }

    private static String signatureName(PrivateKey key) {
        return "RSA".equals(key.getAlgorithm()) ? "SHA256withRSA" : "SHA256withECDSA";
    }
}
