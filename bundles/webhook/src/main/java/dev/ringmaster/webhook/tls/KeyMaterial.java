package dev.ringmaster.webhook.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.time.Instant;
import java.util.List;

/**
 * A certificate chain and its private key, read from PEM files and checked: the key belongs to the
 * first certificate, and that certificate is valid now. The server serves only material that passed
 * these checks, so a broken rotation never replaces a working certificate.
 */
public final class KeyMaterial {

    /** The key store exists only in memory; the password protects nothing but is required by the API. */
    static final String KEY_STORE_PASSWORD = "ringmaster-in-memory";
    static final String ALIAS = "webhook";

    private final List<X509Certificate> chain;
    private final PrivateKey key;

    private KeyMaterial(List<X509Certificate> chain, PrivateKey key) {
        this.chain = List.copyOf(chain);
        this.key = key;
    }

    /**
     * Reads and checks the files.
     *
     * @throws KeyMaterialException with a one-line reason naming the file when the pair cannot serve TLS
     */
    public static KeyMaterial load(Path certificateFile, Path keyFile, Instant now) throws KeyMaterialException {
        return parse(Pem.read(certificateFile), certificateFile.toString(), Pem.read(keyFile), keyFile.toString(), now);
    }

    /** As {@link #load}, from the files' contents. */
    public static KeyMaterial parse(byte[] certificatePem, String certificateFile, byte[] keyPem, String keyFile,
            Instant now) throws KeyMaterialException {
        List<X509Certificate> chain = Pem.readCertificates(certificatePem, certificateFile);
        X509Certificate leaf = chain.get(0);
        PrivateKey key = Pem.readPrivateKey(keyPem, keyFile, leaf.getPublicKey());
        if (!belongTogether(leaf.getPublicKey(), key)) {
            throw new KeyMaterialException(keyFile + " does not belong to the certificate in " + certificateFile
                    + " (" + describe(leaf) + ")");
        }
        Instant notBefore = leaf.getNotBefore().toInstant();
        Instant notAfter = leaf.getNotAfter().toInstant();
        if (now.isAfter(notAfter)) {
            throw new KeyMaterialException("the certificate in " + certificateFile + " expired at " + notAfter
                    + " (" + describe(leaf) + ")");
        }
        if (now.isBefore(notBefore)) {
            throw new KeyMaterialException("the certificate in " + certificateFile + " is not valid before "
                    + notBefore + " (" + describe(leaf) + ")");
        }
        return new KeyMaterial(chain, key);
    }

    /** The server certificate (the first of the chain). */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    public Instant notAfter() {
        return certificate().getNotAfter().toInstant();
    }

    /** A fresh in-memory key store holding the key and chain under one alias. */
    public KeyStore keyStore() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(ALIAS, key, KEY_STORE_PASSWORD.toCharArray(), chain.toArray(X509Certificate[]::new));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build an in-memory key store", e);
        }
    }

    /** The password of {@link #keyStore()}'s store and key entry. */
    public String keyStorePassword() {
        return KEY_STORE_PASSWORD;
    }

    /** Subject, serial number and expiry of the server certificate, for logs. */
    public String describe() {
        return describe(certificate());
    }

    private static String describe(X509Certificate certificate) {
        return "subject " + certificate.getSubjectX500Principal().getName() + ", serial "
                + certificate.getSerialNumber().toString(16) + ", valid until " + certificate.getNotAfter().toInstant();
    }

    /**
     * Whether the private key is the public key's: RSA keys share their modulus; other keys (EC, EdDSA)
     * must make a signature the public key verifies. False for keys of other algorithms.
     */
    public static boolean belongTogether(PublicKey publicKey, PrivateKey key) {
        if (key instanceof RSAKey rsa) {
            return publicKey instanceof RSAKey certificateRsa && rsa.getModulus().equals(certificateRsa.getModulus());
        }
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (algorithm == null || !publicKey.getAlgorithm().equals(key.getAlgorithm())) {
            return false;
        }
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false; // e.g. a key of another curve than the certificate's
        }
    }

    @Override
    public String toString() {
        return "KeyMaterial[" + describe() + ", chain of " + chain.size() + "]";
    }
}
