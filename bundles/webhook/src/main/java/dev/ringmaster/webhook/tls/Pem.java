package dev.ringmaster.webhook.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM (RFC 7468): {@code -----BEGIN LABEL-----}, base64, {@code -----END LABEL-----}. Reads certificate
 * chains and private keys as the webhook's files and the sharder's Secrets hold them, and writes
 * certificates and PKCS#8 keys. What cannot be read is a {@link KeyMaterialException} naming the source
 * (a file, a Secret's key) and the reason in one line.
 */
public final class Pem {

    public static final String CERTIFICATE = "CERTIFICATE";
    public static final String PRIVATE_KEY = "PRIVATE KEY";

    /** One block: its label (e.g. {@code CERTIFICATE}) and its decoded content. */
    record Block(String label, byte[] der) {
    }

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    /** RFC 1421 headers (Proc-Type, DEK-Info) of legacy encrypted keys: a line with a colon. */
    private static final Pattern HEADER_LINE = Pattern.compile("(?m)^[A-Za-z-]+:.*$");
    private static final byte[] NEWLINE = {'\n'};

    private Pem() {
    }

    /** One block, its base64 in lines of 64 characters. */
    public static String encode(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, NEWLINE).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    /** {@code CERTIFICATE} blocks, in order. */
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

    /** A {@code PRIVATE KEY} block (PKCS#8). */
    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("not a PKCS#8 key: " + key.getFormat());
        }
        return encode(PRIVATE_KEY, key.getEncoded());
    }

    /**
     * The certificates of the text, in order, at least one; blocks of other labels are ignored.
     *
     * @param source what the text was read from, for the message
     */
    public static List<X509Certificate> readCertificates(byte[] pem, String source) throws KeyMaterialException {
        List<Block> blocks = blocks(text(pem), source).stream().filter(block -> block.label().equals(CERTIFICATE))
                .toList();
        if (blocks.isEmpty()) {
            throw new KeyMaterialException(source + ": no PEM certificate (BEGIN CERTIFICATE)");
        }
        List<X509Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks) {
                chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
            }
        } catch (CertificateException | RuntimeException e) {
            throw new KeyMaterialException(source + ": certificate " + (chain.size() + 1) + " cannot be read: "
                    + e.getMessage(), e);
        }
        return chain;
    }

    /** The certificates of a PEM file, in order, at least one. */
    public static List<X509Certificate> readCertificates(Path file) throws KeyMaterialException {
        return readCertificates(read(file), file.toString());
    }

    /**
     * The one private key of the text, in any encoding {@link PrivateKeys} reads.
     *
     * @param certificateKey the key of the certificate it goes with, whose curve a SEC1 key that names
     *                       none is read on; null if there is none
     */
    public static PrivateKey readPrivateKey(byte[] pem, String source, PublicKey certificateKey)
            throws KeyMaterialException {
        return PrivateKeys.read(blocks(text(pem), source), source, certificateKey);
    }

    /**
     * Every block of the text, in order; text between blocks is ignored (as openssl does).
     *
     * @throws KeyMaterialException if a block's content is not base64, or is encrypted the legacy way
     */
    static List<Block> blocks(String text, String source) throws KeyMaterialException {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            String label = matcher.group(1);
            String body = matcher.group(2);
            if (HEADER_LINE.matcher(body).find()) {
                throw new KeyMaterialException(source + ": the " + label
                        + " is encrypted (Proc-Type/DEK-Info headers); only unencrypted keys are supported");
            }
            try {
                // the strict decoder: the MIME one skips characters that are not base64
                blocks.add(new Block(label, Base64.getDecoder().decode(body.replaceAll("\\s", ""))));
            } catch (IllegalArgumentException e) {
                throw new KeyMaterialException(source + ": the " + label + " block is not valid base64: "
                        + e.getMessage());
            }
        }
        return blocks;
    }

    /** The bytes of a key or certificate file; a missing or unreadable one is a one-line exception. */
    static byte[] read(Path file) throws KeyMaterialException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new KeyMaterialException(file + ": no such file");
        } catch (IOException e) {
            throw new KeyMaterialException(file + ": cannot be read: " + e, e);
        }
    }

    private static String text(byte[] pem) {
        return new String(pem, StandardCharsets.US_ASCII);
    }
}
