/**
 * TLS key material from PEM files, checked before use, and a poller that notices when the files change
 * (a rotated Secret, a certificate the sharder renewed): the webhook server's, and the authenticated
 * metrics listener's (bundle {@code dev.ringmaster.metrics.auth}), which serves the same certificate.
 * Also the one PEM codec and X.509 certificate writer of Ringmaster ({@link dev.ringmaster.webhook.tls.Pem},
 * {@link dev.ringmaster.webhook.tls.CertificateBuilder}), which the sharder's self-signed certificates use.
 */
@Export
@Version("1.3.0")
package dev.ringmaster.webhook.tls;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
