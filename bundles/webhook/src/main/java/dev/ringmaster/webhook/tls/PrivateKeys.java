package dev.ringmaster.webhook.tls;

import java.io.IOException;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the private key of a PEM file in the encodings cert-manager and openssl write:
 * {@code PRIVATE KEY} (PKCS#8), {@code RSA PRIVATE KEY} (PKCS#1, cert-manager's default) and
 * {@code EC PRIVATE KEY} (SEC1, optionally after an {@code EC PARAMETERS} block). PKCS#1 and SEC1
 * keys are rewrapped as PKCS#8 here, because the JDK's key factories read only PKCS#8. A SEC1 key that
 * names no curve (some tools leave it to the PKCS#8 wrapper they took it from) is read on the curve of
 * the certificate's key; if that is the wrong curve, the key does not match the certificate.
 */
final class PrivateKeys {

    /** rsaEncryption 1.2.840.113549.1.1.1 and id-ecPublicKey 1.2.840.10045.2.1, DER-encoded OIDs. */
    private static final byte[] RSA_ENCRYPTION = Der.hex("06092a864886f70d010101");
    private static final byte[] EC_PUBLIC_KEY = Der.hex("06072a8648ce3d0201");
    private static final byte[] DER_NULL = Der.hex("0500");
    private static final byte[] VERSION_0 = Der.hex("020100");

    /** Algorithm OIDs (content, hex) of PKCS#8 keys to JCA key factory names. */
    private static final Map<String, String> ALGORITHMS = Map.of(
            "2a864886f70d010101", "RSA",
            "2a864886f70d01010a", "RSASSA-PSS",
            "2a8648ce3d0201", "EC",
            "2b6570", "Ed25519",
            "2b6571", "Ed448");

    private PrivateKeys() {
    }

    /**
     * The one private key among the blocks.
     *
     * @throws KeyMaterialException when there is none, more than one, or it cannot be read
     */
    static PrivateKey read(List<Pem.Block> blocks, String file, PublicKey certificateKey) throws KeyMaterialException {
        List<Pem.Block> keys = blocks.stream().filter(block -> block.label().endsWith("PRIVATE KEY")).toList();
        if (keys.isEmpty()) {
            throw new KeyMaterialException(file + ": no PEM private key (expected BEGIN PRIVATE KEY, "
                    + "BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)");
        }
        if (keys.size() > 1) {
            throw new KeyMaterialException(file + ": " + keys.size() + " private keys; expected exactly one");
        }
        Pem.Block key = keys.get(0);
        try {
            return switch (key.label()) {
                case "PRIVATE KEY" -> pkcs8(key.der());
                case "RSA PRIVATE KEY" -> generate("RSA", rsaAsPkcs8(key.der()));
                case "EC PRIVATE KEY" -> generate("EC", ecAsPkcs8(key.der(), curve(blocks, certificateKey)));
                case "ENCRYPTED PRIVATE KEY" -> throw new KeyMaterialException(
                        file + ": the private key is encrypted; only unencrypted keys are supported");
                default -> throw new KeyMaterialException(file + ": unsupported key type '" + key.label() + "'");
            };
        } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
            throw new KeyMaterialException(file + ": the " + key.label() + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        // PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier { algorithm OID, ... }, privateKey }
        Der.Reader info = new Der.Reader(der).next(Der.SEQUENCE, "PrivateKeyInfo").children();
        info.next(Der.INTEGER, "PrivateKeyInfo version");
        Der.Element oid = info.next(Der.SEQUENCE, "AlgorithmIdentifier").children().next(Der.OID, "algorithm");
        String algorithm = ALGORITHMS.get(oid.hex());
        if (algorithm == null) {
            throw new GeneralSecurityException("unsupported key algorithm (OID bytes " + oid.hex() + ")");
        }
        return generate(algorithm, der);
    }

    /** PKCS#1 RSAPrivateKey into PrivateKeyInfo { 0, { rsaEncryption, NULL }, OCTET STRING pkcs1 }. */
    static byte[] rsaAsPkcs8(byte[] pkcs1) {
        new Der.Reader(pkcs1).next(Der.SEQUENCE, "RSAPrivateKey");
        return Der.sequence(VERSION_0, Der.sequence(RSA_ENCRYPTION, DER_NULL), Der.element(Der.OCTET_STRING, pkcs1));
    }

    /**
     * SEC1 ECPrivateKey into PrivateKeyInfo { 0, { id-ecPublicKey, curve }, OCTET STRING sec1 }. The
     * curve comes from the key's own {@code [0]} parameters, else from an {@code EC PARAMETERS} block.
     */
    static byte[] ecAsPkcs8(byte[] sec1, Optional<byte[]> separateCurve) {
        Der.Reader key = new Der.Reader(sec1).next(Der.SEQUENCE, "ECPrivateKey").children();
        key.next(Der.INTEGER, "ECPrivateKey version");
        key.next(Der.OCTET_STRING, "ECPrivateKey privateKey");
        byte[] curve = null;
        while (key.hasNext()) {
            Der.Element element = key.next();
            if (element.tag() == Der.CONTEXT_0) {
                curve = element.children().next(Der.OID, "named curve (only named curves are supported)").encoded();
            }
        }
        if (curve == null) {
            curve = separateCurve.orElseThrow(() -> new IllegalArgumentException(
                    "the EC key names no curve, and neither an EC PARAMETERS block nor the certificate does"));
        }
        return Der.sequence(VERSION_0, Der.sequence(EC_PUBLIC_KEY, curve), Der.element(Der.OCTET_STRING, sec1));
    }

    /** The named curve of an {@code EC PARAMETERS} block, else of the certificate's EC key. */
    private static Optional<byte[]> curve(List<Pem.Block> blocks, PublicKey certificateKey)
            throws GeneralSecurityException, IOException {
        Optional<byte[]> parameters = blocks.stream().filter(block -> block.label().equals("EC PARAMETERS")).findFirst()
                .map(block -> new Der.Reader(block.der()).next(Der.OID, "EC PARAMETERS (only named curves)").encoded());
        if (parameters.isPresent() || !(certificateKey instanceof ECPublicKey ec)) {
            return parameters;
        }
        AlgorithmParameters curve = AlgorithmParameters.getInstance("EC");
        curve.init(ec.getParams());
        return Optional.of(curve.getEncoded()); // the named curve's OID
    }

    private static PrivateKey generate(String algorithm, byte[] pkcs8) throws GeneralSecurityException {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    }
}
