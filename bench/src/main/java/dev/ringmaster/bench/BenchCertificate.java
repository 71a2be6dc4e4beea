package dev.ringmaster.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed RSA 2048 certificate for {@code 127.0.0.1}, made with the JDK's {@code keytool} (no
 * other library) and written as the PEM pair {@code tls.crt} / {@code tls.key} (PKCS#8) the webhook reads.
 */
public final class BenchCertificate {

    private static final String PASSWORD = "bench-only";

    private final Path directory;
    private final Certificate certificate;

    private BenchCertificate(Path directory, Certificate certificate) {
        this.directory = directory;
        this.certificate = certificate;
    }

    public static BenchCertificate create(Path directory) throws IOException, GeneralSecurityException, InterruptedException {
        Files.createDirectories(directory);
        Path store = directory.resolve("bench.p12");
        Files.deleteIfExists(store);
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "webhook", "-keyalg", "RSA",
                "-keysize", "2048", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        Key key = keys.getKey("webhook", PASSWORD.toCharArray());
        Certificate certificate = keys.getCertificate("webhook");
        Files.writeString(directory.resolve("tls.crt"), pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(directory.resolve("tls.key"), pem("PRIVATE KEY", key.getEncoded()));
        return new BenchCertificate(directory, certificate);
    }

    public Path directory() {
        return directory;
    }

    /** A client context trusting this certificate only. */
    public SSLContext clientContext() throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("webhook", certificate);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static String pem(String label, byte[] der) {
        return String.join("\n", List.of("-----BEGIN " + label + "-----",
                Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der), "-----END " + label + "-----", ""));
    }
}
