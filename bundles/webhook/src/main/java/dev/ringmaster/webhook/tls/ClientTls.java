package dev.ringmaster.webhook.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** The client side of an endpoint served with {@link KeyMaterial}: whom a caller trusts. */
public final class ClientTls {

    private ClientTls() {
    }

    /**
     * A TLS context that trusts these certificates and no others: a CA, or a self-signed server certificate
     * itself (the bench's load client, tests).
     */
    public static SSLContext trusting(List<X509Certificate> certificates) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                trust.setCertificateEntry("trusted-" + i, certificates.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a TLS context trusting " + certificates.size()
                    + " certificates", e);
        }
    }
}
