package dev.ringmaster.sharder.certificates;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.sharder.certificates.SelfSignedPki.Authority;
import dev.ringmaster.sharder.certificates.SelfSignedPki.Serving;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.runtime.Reconciler;
import dev.ringmaster.webhook.tls.KeyMaterialException;
import dev.ringmaster.webhook.tls.Pem;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecretList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's certificates without cert-manager ({@code webhookCertificates = self-signed}): every
 * sharder replica runs one of these. It keeps two Secrets in the sharder's namespace,
 *
 * <ul>
 *   <li>{@code <service>-webhook-ca} ({@code ca.crt}, {@code ca.key}): a CA, 10 years by default, renewed
 *       when less than a third of its lifetime is left; {@code ca.crt} is the CA bundle (the current CA
 *       first, then earlier CAs still valid);</li>
 *   <li>{@code <service>-webhook-tls} ({@code tls.crt}, {@code tls.key}, {@code ca.crt}): the serving
 *       certificate for {@code <service>.<namespace>.svc}, {@code ….svc.cluster.local} and
 *       {@code <service>.<namespace>}, 1 year by default, renewed when less than a third is left;</li>
 * </ul>
 *
 * and writes {@code tls.crt}, {@code tls.key} and {@code ca.crt} of the serving Secret into the webhook
 * server's TLS directory ({@link TlsDirectory}, atomically), from which the webhook server reloads
 * within its poll interval. It watches both Secrets through the API (by name, so RBAC can name them),
 * so a certificate another replica renewed is served by this replica within seconds, without waiting
 * for the kubelet to refresh a Secret volume.
 *
 * <p>Replicas never race to different results: a missing Secret is created, and a replica whose
 * create fails with 409 reads what the other made; every change is an update carrying the
 * resourceVersion read, and a 409 starts the pass again from a fresh read. The CA is the same across
 * renewals of the serving certificate, so the {@code caBundle} of the webhook configurations (which
 * the leader writes from {@link #caBundle()}) does not change when the serving certificate does.
 *
 * <p>Bad content (garbage PEM, a key that is not the certificate's, an expired CA, a certificate for
 * other names or signed by another CA) and a Secret deleted by someone are repaired, with a warning in
 * the log and a Warning event on the Secret; nothing here throws out of a pass but API failures, which
 * the pass retries with backoff.
 */
public final class WebhookCertificates implements AutoCloseable {

    /** The files in the Secrets and in the TLS directory. */
    public static final String CA_CERT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String TLS_CERT = "tls.crt";
    public static final String TLS_KEY = "tls.key";
    /** Labels of the Secrets this writes. */
    public static final Map<String, String> LABELS = Map.of("app.kubernetes.io/name", "ringmaster",
            "app.kubernetes.io/component", "sharder", "app.kubernetes.io/managed-by", "ringmaster-sharder");

    private static final Logger LOG = LoggerFactory.getLogger(WebhookCertificates.class);
    private static final String KEY = "webhook-certificates";
    private static final String REPORTING_CONTROLLER = "ringmaster.dev/webhook-certificates";
    private static final int HTTP_CONFLICT = 409;
    private static final int ATTEMPTS = 5;
    private static final Duration LONGEST_WAIT = Duration.ofHours(1);
    private static final Duration SHORTEST_WAIT = Duration.ofSeconds(1);
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    /**
     * @param namespace           the sharder's namespace: the Secrets and the Service live there
     * @param service             the Service the API server calls the webhook through
     * @param caValidity          lifetime of a new CA
     * @param certificateValidity lifetime of a new serving certificate
     * @param directory           where the webhook server reads {@code tls.crt} and {@code tls.key};
     *                            empty: write no files (tests, or a webhook reading them elsewhere)
     */
    public record Settings(String namespace, String service, Duration caValidity, Duration certificateValidity,
            Optional<Path> directory) {

        public static final Duration DEFAULT_CA_VALIDITY = Duration.ofDays(3650);
        public static final Duration DEFAULT_CERTIFICATE_VALIDITY = Duration.ofDays(365);

        public Settings {
            requireDnsLabel("namespace", namespace);
            requireDnsLabel("service", service);
            if (service.length() > 48) {
                throw new IllegalArgumentException("webhook service name \"" + service
                        + "\" is too long for the Secret names derived from it (48 characters at most)");
            }
            Objects.requireNonNull(directory, "directory");
            new SelfSignedPki(caValidity, certificateValidity, new SecureRandom()); // checks the durations
        }

        /** The Secret holding the CA: {@code <service>-webhook-ca}. */
        public String caSecret() {
            return service + "-webhook-ca";
        }

        /** The Secret holding the serving certificate: {@code <service>-webhook-tls}. */
        public String tlsSecret() {
            return service + "-webhook-tls";
        }

        /** The names the API server may call the Service by; the first is also the common name. */
        public List<String> dnsNames() {
            return List.of(service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local",
                    service + "." + namespace);
        }

        String caCommonName() {
            return "ringmaster webhook CA " + namespace + "/" + service;
        }

        private static void requireDnsLabel(String what, String value) {
            if (value == null || value.length() > 63 || !DNS_LABEL.matcher(value).matches()) {
                throw new IllegalArgumentException("webhook certificates: " + what + " \"" + value
                        + "\" must be a lowercase DNS label");
            }
        }
    }

    /** The outcome of one pass, for logs and tests. */
    public record Pass(Authority authority, Serving serving, Instant nextCheck) {
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final Clock clock;
    private final SelfSignedPki pki;
    private final ObjectEvents events;
    private final Optional<TlsDirectory> directory;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final Controller<String> controller;
    private final List<SharedIndexInformer<Secret>> informers = new ArrayList<>();
    private final Object passLock = new Object();

    /** The CA bundle of the last pass; null before the first one succeeded. */
    private volatile byte[] caBundle;
    /** Whether this replica saw each Secret before: one that disappears afterwards was deleted by someone. */
    private volatile boolean sawCa;
    private volatile boolean sawTls;

    public WebhookCertificates(KubernetesClient client, Settings settings, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.pki = new SelfSignedPki(settings.caValidity(), settings.certificateValidity(), new SecureRandom());
        this.events = new ObjectEvents(client, clock, REPORTING_CONTROLLER);
        this.directory = settings.directory().map(TlsDirectory::new);
        this.controller = new Controller<>("webhook-certificates", key -> {
            Pass pass = reconcile();
            return Reconciler.Result.requeueAfter(Duration.between(clock.instant(), pass.nextCheck()));
        }, 1, Backoff.DEFAULT);
    }

    /** Starts watching both Secrets and makes the first pass at once; returns at once. */
    public synchronized void start() {
        for (String name : List.of(settings.caSecret(), settings.tlsSecret())) {
            SharedIndexInformer<Secret> informer = secrets().withName(name).runnableInformer(0)
                    .exceptionHandler((started, failure) -> {
                        LOG.warn("Watching Secret {}/{} failed, retrying: {}", settings.namespace(), name,
                                failure.toString());
                        return true;
                    });
            informer.addEventHandler(EventHandlers.onEveryEvent(secret -> controller.enqueue(KEY)));
            informers.add(informer);
            informer.start();
        }
        controller.start();
        controller.enqueue(KEY);
    }

    /** Makes a pass soon, as a change of either Secret does (after {@link #start()}). */
    public void check() {
        controller.enqueue(KEY);
    }

    /** The CA bundle (PEM) the API server must trust, once known. */
    public Optional<byte[]> caBundle() {
        byte[] bundle = caBundle;
        return bundle == null ? Optional.empty() : Optional.of(bundle.clone());
    }

    /** Told (on the pass's thread) whenever {@link #caBundle()} changed. */
    public void addListener(Runnable listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public Settings settings() {
        return settings;
    }

    /**
     * One pass: brings both Secrets in line (creating, renewing or repairing), writes the files and
     * publishes the CA bundle.
     *
     * @return what is in force now and when to look again (the earlier renewal, at most an hour away)
     * @throws KubernetesClientException when the API server refuses or cannot be reached (retried)
     * @throws UncheckedIOException      when the TLS directory cannot be written (retried)
     */
    public Pass reconcile() {
        synchronized (passLock) { // the controller's worker and a direct caller (tests) take turns
            return pass();
        }
    }

    private Pass pass() {
        Authority authority = ensureAuthority();
        Serving serving = ensureServing(authority);
        byte[] bundle = authority.bundlePem();
        if (directory.isPresent()) {
            Map<String, byte[]> files = new LinkedHashMap<>();
            files.put(TLS_CERT, serving.certificatePem());
            files.put(TLS_KEY, serving.keyPem());
            files.put(CA_CERT, bundle);
            try {
                if (directory.get().publish(files)) {
                    LOG.info("webhook serving certificate written to {} ({}, valid until {})", directory.get().path(),
                            serving.certificate().getSubjectX500Principal().getName(),
                            serving.certificate().getNotAfter().toInstant());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the webhook's certificate files into "
                        + directory.get().path() + " (it must be a writable directory, e.g. an emptyDir)", e);
            }
        }
        byte[] before = caBundle;
        caBundle = bundle;
        if (!Arrays.equals(before, bundle)) {
            listeners.forEach(Runnable::run);
        }
        Instant now = clock.instant();
        Instant next = SelfSignedPki.renewalTime(serving.certificate());
        Instant caRenewal = SelfSignedPki.renewalTime(authority.certificate());
        if (caRenewal.isBefore(next)) {
            next = caRenewal;
        }
        for (X509Certificate old : authority.bundle()) {
            Instant end = old.getNotAfter().toInstant().plusSeconds(1);
            if (end.isBefore(next)) {
                next = end; // dropped from the bundle then
            }
        }
        if (next.isAfter(now.plus(LONGEST_WAIT))) {
            next = now.plus(LONGEST_WAIT);
        } else if (next.isBefore(now.plus(SHORTEST_WAIT))) {
            next = now.plus(SHORTEST_WAIT);
        }
        return new Pass(authority, serving, next);
    }

    // ---- the CA

    private Authority ensureAuthority() {
        String name = settings.caSecret();
        for (int attempt = 1; ; attempt++) {
            Instant now = clock.instant();
            Secret current = secrets().withName(name).get();
            try {
                if (current == null) {
                    Authority created = pki.newAuthority(settings.caCommonName(), now, List.of());
                    if (!create(caSecret(null, created))) {
                        continue; // another replica made it: use that one
                    }
                    if (sawCa) {
                        warn(read(name), "WebhookCARecreated", "the Secret was deleted; a new CA replaces the "
                                + "one it held, and webhook calls may fail TLS until every replica serves a certificate "
                                + "of the new CA and every webhook configuration trusts it (seconds)");
                    } else {
                        LOG.info("created the webhook CA in Secret {}/{}: {}, valid until {}", settings.namespace(),
                                name, created.certificate().getSubjectX500Principal().getName(),
                                created.certificate().getNotAfter().toInstant());
                    }
                    sawCa = true;
                    return created;
                }
                sawCa = true;
                ParsedAuthority parsed = parseAuthority(current, now);
                if (parsed.problem() != null) {
                    Authority replacement = pki.newAuthority(settings.caCommonName(), now, List.of());
                    if (!update(caSecret(current, replacement))) {
                        continue;
                    }
                    warn(current, "InvalidWebhookCA", "the CA in this Secret cannot be used (" + parsed.problem()
                            + "); replaced by a new CA. Webhook calls may fail TLS for seconds until every replica "
                            + "serves a certificate of the new CA and every webhook configuration trusts it");
                    return replacement;
                }
                Authority authority = parsed.authority();
                if (SelfSignedPki.renewalDue(authority.certificate(), now)) {
                    Authority renewed = pki.newAuthority(settings.caCommonName(), now, authority.bundle());
                    if (!update(caSecret(current, renewed))) {
                        continue;
                    }
                    LOG.warn("renewed the webhook CA in Secret {}/{}: the old one ends {}; it stays in the CA bundle "
                            + "until then, so the certificates it signed stay trusted until they are renewed",
                            settings.namespace(), name, authority.certificate().getNotAfter().toInstant());
                    return renewed;
                }
                List<X509Certificate> unexpired = authority.bundle().stream()
                        .filter(certificate -> certificate.equals(authority.certificate())
                                || !SelfSignedPki.expired(certificate, now))
                        .toList();
                if (unexpired.size() != authority.bundle().size()) {
                    Authority pruned = new Authority(authority.certificate(), authority.key(), unexpired);
                    if (!update(caSecret(current, pruned))) {
                        continue;
                    }
                    LOG.info("removed expired CA certificates from the CA bundle in Secret {}/{}", settings.namespace(),
                            name);
                    return pruned;
                }
                return authority;
            } catch (GeneralSecurityException | KubernetesClientException e) {
                tryAgainOnlyAfterAConflict(e, attempt);
            }
        }
    }

    /**
     * The failure of an attempt of {@link #ensureAuthority} or {@link #ensureServing}: returns when it was a
     * conflict (409) and attempts are left, so the caller reads the Secret again; throws otherwise (a JVM that
     * cannot make the certificates as an IllegalStateException).
     */
    private static void tryAgainOnlyAfterAConflict(Exception failure, int attempt) {
        if (failure instanceof GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot make ECDSA P-256 certificates", e);
        }
        KubernetesClientException e = (KubernetesClientException) failure;
        if (e.getCode() != HTTP_CONFLICT || attempt >= ATTEMPTS) {
            throw e;
        }
    }

    private record ParsedAuthority(Authority authority, String problem) {
    }

    private ParsedAuthority parseAuthority(Secret secret, Instant now) {
        try {
            List<X509Certificate> bundle = Pem.readCertificates(data(secret, CA_CERT), CA_CERT);
            PrivateKey key = Pem.readPrivateKey(data(secret, CA_KEY), CA_KEY, bundle.get(0).getPublicKey());
            Optional<String> unusable = SelfSignedPki.unusableAuthority(bundle.get(0), key, now);
            if (unusable.isPresent()) {
                return new ParsedAuthority(null, unusable.get());
            }
            return new ParsedAuthority(new Authority(bundle.get(0), key, bundle), null);
        } catch (KeyMaterialException e) {
            return new ParsedAuthority(null, e.getMessage());
        }
    }

    private Secret caSecret(Secret current, Authority authority) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(CA_CERT, base64(authority.bundlePem()));
        data.put(CA_KEY, base64(authority.keyPem()));
        return secret(current, settings.caSecret(), "Opaque", data);
    }

    // ---- the serving certificate

    private Serving ensureServing(Authority authority) {
        String name = settings.tlsSecret();
        byte[] bundle = authority.bundlePem();
        for (int attempt = 1; ; attempt++) {
            Instant now = clock.instant();
            Secret current = secrets().withName(name).get();
            try {
                if (current == null) {
                    Serving issued = pki.issue(authority, settings.dnsNames(), now);
                    if (!create(tlsSecret(null, issued, bundle))) {
                        continue;
                    }
                    if (sawTls) {
                        warn(read(name), "WebhookCertificateRecreated",
                                "the Secret was deleted; a new serving certificate replaces the one it held");
                    } else {
                        LOG.info("created the webhook serving certificate in Secret {}/{} for {}, valid until {}",
                                settings.namespace(), name, settings.dnsNames(),
                                issued.certificate().getNotAfter().toInstant());
                    }
                    sawTls = true;
                    return issued;
                }
                sawTls = true;
                String problem;
                Serving served = null;
                try {
                    List<X509Certificate> chain = Pem.readCertificates(data(current, TLS_CERT), TLS_CERT);
                    PrivateKey key = Pem.readPrivateKey(data(current, TLS_KEY), TLS_KEY, chain.get(0).getPublicKey());
                    problem = SelfSignedPki.unusableServing(chain.get(0), key, settings.dnsNames(), authority.bundle(),
                            now).orElse(null);
                    served = new Serving(chain.get(0), key);
                } catch (KeyMaterialException e) {
                    problem = e.getMessage();
                }
                if (problem != null) {
                    Serving issued = pki.issue(authority, settings.dnsNames(), now);
                    if (!update(tlsSecret(current, issued, bundle))) {
                        continue;
                    }
                    warn(current, "InvalidWebhookCertificate", "the serving certificate in this Secret cannot be used ("
                            + problem + "); replaced by a new one");
                    return issued;
                }
                if (SelfSignedPki.renewalDue(served.certificate(), now)) {
                    Serving renewed = pki.issue(authority, settings.dnsNames(), now);
                    if (!update(tlsSecret(current, renewed, bundle))) {
                        continue;
                    }
                    LOG.info("renewed the webhook serving certificate in Secret {}/{}: valid until {} (the previous "
                            + "one ends {})", settings.namespace(), name, renewed.certificate().getNotAfter().toInstant(),
                            served.certificate().getNotAfter().toInstant());
                    return renewed;
                }
                if (!Arrays.equals(dataOrNull(current, CA_CERT), bundle)) {
                    Map<String, String> data = new LinkedHashMap<>(current.getData());
                    data.put(CA_CERT, base64(bundle));
                    if (!update(secret(current, name, current.getType(), data))) {
                        continue;
                    }
                }
                return served;
            } catch (GeneralSecurityException | KubernetesClientException e) {
                tryAgainOnlyAfterAConflict(e, attempt);
            }
        }
    }

    private Secret tlsSecret(Secret current, Serving serving, byte[] bundle) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(TLS_CERT, base64(serving.certificatePem()));
        data.put(TLS_KEY, base64(serving.keyPem()));
        data.put(CA_CERT, base64(bundle));
        return secret(current, settings.tlsSecret(), "kubernetes.io/tls", data);
    }

    // ---- Secrets

    /**
     * The Secret to write: a new one, or the current one with this data (its type kept, as the API server
     * does not let a type change, and others' labels and annotations kept), locked to its resourceVersion.
     */
    private Secret secret(Secret current, String name, String type, Map<String, String> data) {
        if (current == null) {
            return new SecretBuilder().withNewMetadata().withName(name).withNamespace(settings.namespace())
                    .withLabels(LABELS).endMetadata().withType(type).withData(data).build();
        }
        ObjectMeta meta = current.getMetadata();
        Map<String, String> labels = new LinkedHashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
        labels.putAll(LABELS);
        return new SecretBuilder(current).editMetadata().withLabels(labels).endMetadata()
                .withData(data).withStringData(null).build();
    }

    /** @return false when another replica created it first (409) */
    private boolean create(Secret secret) {
        return written(secret, () -> secrets().resource(secret).create(), "was created meanwhile; reading it");
    }

    /** @return false when someone wrote it since it was read (409): the caller reads it again */
    private boolean update(Secret secret) {
        // an update carrying the resourceVersion read: the API server refuses it if anyone wrote since
        return written(secret, () -> secrets().resource(secret).update(), "changed meanwhile; reading it again");
    }

    /** @return false when {@code write} of {@code secret} met a conflict (409), which is logged as {@code meanwhile} */
    private boolean written(Secret secret, Runnable write, String meanwhile) {
        try {
            write.run();
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == HTTP_CONFLICT) {
                LOG.debug("Secret {}/{} {}", settings.namespace(), secret.getMetadata().getName(), meanwhile);
                return false;
            }
            throw e;
        }
    }

    private Secret read(String name) {
        return secrets().withName(name).get();
    }

    private void warn(Secret secret, String reason, String note) {
        String name = secret == null ? "?" : secret.getMetadata().getName();
        LOG.warn("webhook certificates, Secret {}/{}: {}", settings.namespace(), name, note);
        if (secret != null) {
            events.warn(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Secret")
                    .withNamespace(settings.namespace()).withName(name).withUid(secret.getMetadata().getUid())
                    .build(), reason, "Repair", note);
        }
    }

    private NonNamespaceOperation<Secret, SecretList, Resource<Secret>> secrets() {
        return client.secrets().inNamespace(settings.namespace());
    }

    private static byte[] data(Secret secret, String key) throws KeyMaterialException {
        byte[] value = dataOrNull(secret, key);
        if (value == null) {
            throw new KeyMaterialException("no " + key + " in the Secret");
        }
        return value;
    }

    private static byte[] dataOrNull(Secret secret, String key) {
        Map<String, String> data = secret.getData();
        String value = data == null ? null : data.get(key);
        if (value == null) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }

    private static String base64(byte[] value) {
        return Base64.getEncoder().encodeToString(value);
    }

    /** Stops watching and the pass in flight (within a grace period); the Secrets and files stay. */
    @Override
    public synchronized void close() {
        informers.forEach(SharedIndexInformer::close);
        informers.clear();
        controller.stop();
        controller.awaitStopped(Controller.CLOSE_GRACE);
    }
}
