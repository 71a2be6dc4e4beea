package dev.ringmaster.sharder.certificates;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM (RFC 7468) for what the sharder keeps in its Secrets: certificates ({@code CERTIFICATE}) and
 * unencrypted PKCS#8 private keys ({@code PRIVATE KEY}), the encodings the webhook server and the API
 * server read. Anything else is a {@link BadPemException} with a sentence saying what is wrong.
 */
public final class Pem {

    public static final String CERTIFICATE = "CERTIFICATE";
    public static final String PRIVATE_KEY = "PRIVATE KEY";

    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----",
            Pattern.DOTALL);
    private static final byte[] NEWLINE = {'\n'};

    /** The content is not the PEM expected. */
    public static final class BadPemException extends Exception {
        public BadPemException(String message) {
            super(message);
        }
    }

    private Pem() {
    }

    public static String encode(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, NEWLINE).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    public static String certificates(List<X509Certificate> certificates) {
        StringBuilder pem = new StringBuilder();
        for (X509Certificate certificate : certificates) {
            try {
                pem.append(encode(CERTIFICATE, certificate.getEncoded()));
            } catch (CertificateEncodingException e) {
                throw new IllegalArgumentException("certificate cannot be encoded", e);
            }
        }
        return pem.toString();
    }

    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("not a PKCS#8 key: " + key.getFormat());
        }
        return encode(PRIVATE_KEY, key.getEncoded());
    }

    /** Every certificate of the text, in order; at least one. */
    public static List<X509Certificate> readCertificates(byte[] text) throws BadPemException {
        List<X509Certificate> certificates = new ArrayList<>();
        for (byte[] der : blocks(text, CERTIFICATE)) {
            try {
                certificates.add((X509Certificate) CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(der)));
            } catch (CertificateException | RuntimeException e) {
                throw new BadPemException("a CERTIFICATE block is not an X.509 certificate (" + e.getMessage() + ")");
            }
        }
        return certificates;
    }

    /** The one private key of the text: PKCS#8, EC or RSA. */
    public static PrivateKey readPrivateKey(byte[] text) throws BadPemException {
        List<byte[]> keys = blocks(text, PRIVATE_KEY);
        if (keys.size() != 1) {
            throw new BadPemException("expected one PRIVATE KEY block, found " + keys.size());
        }
        for (String algorithm : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(keys.get(0)));
            } catch (GeneralSecurityException | RuntimeException e) {
                // try the next
            }
        }
        throw new BadPemException("the PRIVATE KEY block is neither a PKCS#8 EC nor RSA key");
    }

    private static List<byte[]> blocks(byte[] text, String label) throws BadPemException {
        if (text == null || text.length == 0) {
            throw new BadPemException("empty");
        }
        List<byte[]> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(new String(text, StandardCharsets.US_ASCII));
        while (matcher.find()) {
            if (!matcher.group(1).equals(label)) {
                throw new BadPemException("a " + matcher.group(1) + " block where only " + label + " blocks belong");
            }
            try {
                blocks.add(Base64.getDecoder().decode(matcher.group(2).replaceAll("\\s", "")));
            } catch (IllegalArgumentException e) {
                throw new BadPemException("a " + label + " block is not valid base64");
            }
        }
        if (blocks.isEmpty()) {
            throw new BadPemException("no " + label + " block");
        }
        return blocks;
    }
}
