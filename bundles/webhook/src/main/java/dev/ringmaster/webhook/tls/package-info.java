/**
 * TLS key material from PEM files, checked before use, and a poller that notices when the files change
 * (a rotated Secret, a certificate the sharder renewed): the webhook server's, and the authenticated
 * metrics listener's (bundle {@code dev.ringmaster.metrics.auth}), which serves the same certificate.
 */
@Export
@Version("1.1.0")
package dev.ringmaster.webhook.tls;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
