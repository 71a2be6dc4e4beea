package dev.ringmaster.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The certificates {@link CertificateBuilder} writes, judged by code that is not its own: the JDK's
 * certificate parser and PKIX path validation, Bouncy Castle (parsing, signature check, extension
 * parsers, and its DER encoder writing the same bytes again), openssl when the machine has it, and a
 * TLS handshake with hostname verification.
 */
class CertificateBuilderTest {

    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    private static final List<String> NAMES = List.of("sharder.sharding-system.svc",
            "sharder.sharding-system.svc.cluster.local", "sharder.sharding-system");

    private final CertificateBuilder builder = new CertificateBuilder(new SecureRandom());

    @TempDir
    Path dir;

    private record Issued(X509Certificate certificate, KeyPair keys) {
    }

    private static KeyPair ec() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private Issued ca(KeyPair keys, String name) throws Exception {
        return new Issued(builder.build(new CertificateBuilder.Spec(name, keys.getPublic(), null, keys.getPrivate(),
                NOW.minus(Duration.ofMinutes(5)), NOW.plus(Duration.ofDays(3650)), true, List.of(), List.of())), keys);
    }

    private Issued server(Issued ca, KeyPair keys, List<String> names, List<InetAddress> addresses) throws Exception {
        return new Issued(builder.build(new CertificateBuilder.Spec(names.isEmpty() ? "ip" : names.get(0), keys.getPublic(),
                ca.certificate(), ca.keys().getPrivate(), NOW.minus(Duration.ofMinutes(5)), NOW.plus(Duration.ofDays(365)),
                false, names, addresses)), keys);
    }

    @Test
    void theJdkReadsACaAndAServerCertificateAsTheyWereMeant() throws Exception {
        Issued ca = ca(ec(), "ringmaster webhook CA sharding-system/sharder");
        Issued server = server(ca, ec(), NAMES, List.of());

        X509Certificate c = ca.certificate();
        assertThat(c.getVersion()).isEqualTo(3);
        assertThat(c.getSerialNumber().signum()).isPositive();
        assertThat(c.getSerialNumber().bitLength()).isLessThanOrEqualTo(159);
        assertThat(c.getSigAlgName()).isEqualTo("SHA256withECDSA");
        assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=ringmaster webhook CA sharding-system/sharder");
        assertThat(c.getIssuerX500Principal()).isEqualTo(c.getSubjectX500Principal());
        assertThat(c.getBasicConstraints()).isEqualTo(0);
        assertThat(c.getKeyUsage()).startsWith(true, false, false, false, false, true, true);
        assertThat(c.getCriticalExtensionOIDs()).containsExactlyInAnyOrder("2.5.29.19", "2.5.29.15");
        assertThat(c.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofMinutes(5)));
        assertThat(c.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(3650)));
        assertThat(c.getPublicKey()).isEqualTo(ca.keys().getPublic());
        c.verify(ca.keys().getPublic());

        X509Certificate s = server.certificate();
        assertThat(s.getVersion()).isEqualTo(3);
        assertThat(s.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(s.getKeyUsage()).startsWith(true, false, false);
        assertThat(s.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(s.getSubjectAlternativeNames()).extracting(name -> name.get(0), name -> name.get(1))
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, NAMES.get(0)),
                        org.assertj.core.groups.Tuple.tuple(2, NAMES.get(1)),
                        org.assertj.core.groups.Tuple.tuple(2, NAMES.get(2)));
        assertThat(s.getSubjectX500Principal().getName()).isEqualTo("CN=" + NAMES.get(0));
        assertThat(s.getIssuerX500Principal().getEncoded()).isEqualTo(c.getSubjectX500Principal().getEncoded());
        s.verify(ca.keys().getPublic());
    }

    @Test
    void pkixValidatesTheChainAtTimesInsideItsValidityAndNowhereElse() throws Exception {
        Issued ca = ca(ec(), "ca");
        Issued server = server(ca, ec(), NAMES, List.of());
        validate(server.certificate(), ca.certificate(), NOW);
        validate(server.certificate(), ca.certificate(), NOW.plus(Duration.ofDays(364)));

        assertThatThrownBy(() -> validate(server.certificate(), ca.certificate(), NOW.plus(Duration.ofDays(366))))
                .isInstanceOf(CertPathValidatorException.class).hasRootCauseInstanceOf(CertificateExpiredException.class);
        assertThatThrownBy(() -> validate(server.certificate(), ca.certificate(), NOW.minus(Duration.ofHours(1))))
                .isInstanceOf(CertPathValidatorException.class)
                .hasRootCauseInstanceOf(CertificateNotYetValidException.class);
        Issued otherCa = ca(ec(), "ca"); // same name, other key: the signature decides
        assertThatThrownBy(() -> validate(server.certificate(), otherCa.certificate(), NOW))
                .isInstanceOf(CertPathValidatorException.class);
        // a server certificate cannot act as a CA: as an intermediate its key usage (and basicConstraints) fail the path
        Issued below = server(server, ec(), List.of("x.example"), List.of());
        below.certificate().verify(server.keys().getPublic()); // signed all right
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(Date.from(NOW));
        assertThatThrownBy(() -> CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509")
                .generateCertPath(List.of(below.certificate(), server.certificate())), parameters))
                .isInstanceOf(CertPathValidatorException.class).hasMessageMatching(".*(keyCertSign|basic constraints).*");
    }

    @Test
    void rsaKeysSignWithSha256WithRsaAndServerRsaKeysMayEncipher() throws Exception {
        Issued ca = ca(rsa(), "rsa ca");
        Issued rsaServer = server(ca, rsa(), NAMES, List.of());
        Issued ecServer = server(ca, ec(), NAMES, List.of());
        assertThat(ca.certificate().getSigAlgName()).isEqualTo("SHA256withRSA");
        assertThat(new X509CertificateHolder(ca.certificate().getEncoded()).getSignatureAlgorithm().getParameters())
                .as("NULL parameters (RFC 4055)").isEqualTo(DERNull.INSTANCE);
        assertThat(rsaServer.certificate().getKeyUsage()).startsWith(true, false, true);
        assertThat(ecServer.certificate().getKeyUsage()).startsWith(true, false, false);
        validate(rsaServer.certificate(), ca.certificate(), NOW);
        validate(ecServer.certificate(), ca.certificate(), NOW);
        // and an EC CA over an RSA server key
        Issued ecCa = ca(ec(), "ec ca");
        validate(server(ecCa, rsa(), NAMES, List.of()).certificate(), ecCa.certificate(), NOW);
    }

    @Test
    void bouncyCastleReadsTheSameCertificateAndWritesTheSameBytes() throws Exception {
        Issued ca = ca(ec(), "ca");
        Issued server = server(ca, ec(), NAMES, List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1")));
        for (Issued issued : List.of(ca, server)) {
            byte[] encoded = issued.certificate().getEncoded();
            X509CertificateHolder holder = new X509CertificateHolder(encoded);
            // canonical DER: re-encoding what Bouncy Castle parsed gives the same bytes
            assertThat(holder.toASN1Structure().getEncoded(ASN1Encoding.DER)).isEqualTo(encoded);
            assertThat(holder.isSignatureValid(new JcaContentVerifierProviderBuilder().build(ca.keys().getPublic()))).isTrue();
            assertThat(holder.getVersionNumber()).isEqualTo(3);
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            assertThat(SubjectKeyIdentifier.fromExtensions(holder.getExtensions()))
                    .isEqualTo(utils.createSubjectKeyIdentifier(issued.keys().getPublic()));
            assertThat(AuthorityKeyIdentifier.fromExtensions(holder.getExtensions()).getKeyIdentifier())
                    .isEqualTo(utils.createSubjectKeyIdentifier(ca.keys().getPublic()).getKeyIdentifier());
        }
        X509CertificateHolder caHolder = new X509CertificateHolder(ca.certificate().getEncoded());
        assertThat(BasicConstraints.fromExtensions(caHolder.getExtensions()).isCA()).isTrue();
        assertThat(KeyUsage.fromExtensions(caHolder.getExtensions()).hasUsages(
                KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature)).isTrue();

        X509CertificateHolder holder = new X509CertificateHolder(server.certificate().getEncoded());
        assertThat(BasicConstraints.fromExtensions(holder.getExtensions()).isCA()).isFalse();
        assertThat(holder.getExtension(Extension.basicConstraints).isCritical()).isTrue();
        assertThat(holder.getExtension(Extension.keyUsage).isCritical()).isTrue();
        assertThat(ExtendedKeyUsage.fromExtensions(holder.getExtensions()).getUsages())
                .containsExactly(KeyPurposeId.id_kp_serverAuth);
        List<String> names = new ArrayList<>();
        for (GeneralName name : GeneralNames.fromExtensions(holder.getExtensions(), Extension.subjectAlternativeName).getNames()) {
            names.add(name.getTagNo() + ":" + name.getName());
        }
        assertThat(names).containsExactly("2:" + NAMES.get(0), "2:" + NAMES.get(1), "2:" + NAMES.get(2),
                "7:#7f000001", "7:#00000000000000000000000000000001");
    }

    @Test
    void opensslVerifiesTheChainForAServerAndReadsTheExtensions() throws Exception {
        assumeThat(openssl("version").exitCode()).as("openssl on this machine").isZero();
        Issued ca = ca(ec(), "ringmaster webhook CA");
        Issued server = server(ca, ec(), NAMES, List.of());
        Path caFile = Files.writeString(dir.resolve("ca.crt"), Pem.certificates(List.of(ca.certificate())));
        Path serverFile = Files.writeString(dir.resolve("tls.crt"), Pem.certificates(List.of(server.certificate())));
        Path keyFile = Files.writeString(dir.resolve("tls.key"), Pem.privateKey(server.keys().getPrivate()));

        // at a time inside the certificates' validity, as a TLS server certificate, for the Service's name
        String at = Long.toString(NOW.plus(Duration.ofDays(1)).getEpochSecond());
        Result verify = openssl("verify", "-attime", at, "-purpose", "sslserver", "-verify_hostname", NAMES.get(0),
                "-x509_strict", "-CAfile", caFile.toString(), serverFile.toString());
        assertThat(verify.output()).contains(serverFile + ": OK");
        assertThat(verify.exitCode()).isZero();
        Result wrongHost = openssl("verify", "-attime", at, "-verify_hostname", "other.example", "-CAfile",
                caFile.toString(), serverFile.toString());
        assertThat(wrongHost.exitCode()).isNotZero();

        String text = openssl("x509", "-noout", "-text", "-in", serverFile.toString()).output();
        assertThat(text).contains("Version: 3 (0x2)", "Signature Algorithm: ecdsa-with-SHA256",
                "X509v3 Basic Constraints: critical", "CA:FALSE", "X509v3 Key Usage: critical", "Digital Signature",
                "TLS Web Server Authentication", "DNS:sharder.sharding-system.svc, DNS:sharder.sharding-system.svc.cluster.local,"
                        + " DNS:sharder.sharding-system", "X509v3 Subject Key Identifier", "X509v3 Authority Key Identifier");
        assertThat(openssl("x509", "-noout", "-text", "-in", caFile.toString()).output())
                .contains("CA:TRUE, pathlen:0", "Certificate Sign, CRL Sign");
        // openssl reads the key as the webhook server does (PKCS#8) and finds it is the certificate's
        String keyPublic = openssl("pkey", "-in", keyFile.toString(), "-pubout").output();
        String certificatePublic = openssl("x509", "-noout", "-pubkey", "-in", serverFile.toString()).output();
        assertThat(keyPublic).isEqualTo(certificatePublic).contains("BEGIN PUBLIC KEY");
    }

    @Test
    void aTlsClientTrustingTheCaConnectsByTheServicesNameAndByNoOther() throws Exception {
        // valid now, for the JDK's own idea of now
        Instant now = Instant.now();
        KeyPair caKeys = ec();
        Issued liveCa = new Issued(builder.build(new CertificateBuilder.Spec("ca", caKeys.getPublic(), null,
                caKeys.getPrivate(), now.minusSeconds(60), now.plus(Duration.ofDays(2)), true, List.of(), List.of())),
                caKeys);
        KeyPair serverKeys = ec();
        Issued server = new Issued(builder.build(new CertificateBuilder.Spec(NAMES.get(0), serverKeys.getPublic(),
                liveCa.certificate(), caKeys.getPrivate(), now.minusSeconds(60), now.plus(Duration.ofDays(1)), false, NAMES,
                List.of())), serverKeys);

        KeyStore serverStore = KeyStore.getInstance("PKCS12");
        serverStore.load(null, null);
        serverStore.setKeyEntry("tls", server.keys().getPrivate(), new char[0], new X509Certificate[] {server.certificate()});
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(serverStore, new char[0]);
        SSLContext serverContext = SSLContext.getInstance("TLS");
        serverContext.init(keys.getKeyManagers(), null, null);

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", liveCa.certificate());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, trustManagers.getTrustManagers(), null);

        try (SSLServerSocket listener = (SSLServerSocket) serverContext.getServerSocketFactory()
                .createServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> serving = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 2; i++) {
                    try (SSLSocket accepted = (SSLSocket) listener.accept()) {
                        accepted.getOutputStream().write('!');
                        accepted.getOutputStream().flush();
                    } catch (IOException e) {
                        // the client that refused the certificate
                    }
                }
            });
            assertThat(handshake(clientContext, listener.getLocalPort(), NAMES.get(0))).isEqualTo('!');
            assertThatThrownBy(() -> handshake(clientContext, listener.getLocalPort(), "other.sharding-system.svc"))
                    .isInstanceOf(SSLHandshakeException.class);
            serving.get(10, TimeUnit.SECONDS);
        }
    }

    /** Connects to the loopback port, verifying the server's certificate for {@code host}, and reads a byte. */
    private static int handshake(SSLContext context, int port, String host) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, true)) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.setSoTimeout(5000);
            socket.startHandshake();
            try (InputStream in = socket.getInputStream()) {
                return in.read();
            }
        }
    }

    private static void validate(X509Certificate server, X509Certificate ca, Instant at) throws Exception {
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(Date.from(at));
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(server)), parameters);
    }

    private record Result(int exitCode, String output) {
    }

    private static Result openssl(String... args) {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, output);
            }
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, e.toString());
        }
    }
}
