package dev.ringmaster.sandbox;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.mockapiserver.CrudApiServer;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * The sandbox's API server: fabric8's mock server in CRUD mode over HTTPS on 127.0.0.1, plus the
 * API discovery the sharder asks for, which CRUD mode does not serve. It runs on Vert.x, whose jars
 * are not bundles, so it lives on the sandbox's plain class path beside the framework (BOM trap 10).
 * The in-framework tests ({@code itests}) run their API server with it too, in the test JVM.
 */
public final class EmbeddedApiServer implements AutoCloseable {

    /** The CRD of a ring kind, as the build generates it into the sharder bundle. */
    static String crdEntry(RingKind kind) {
        return "META-INF/fabric8/" + kind.plural() + "." + RingContract.API_GROUP + "-v1.yml";
    }
    /** The core (v1) resources discovery lists: what the sharder's rings and plug-ins look up. */
    private static final String[][] CORE_RESOURCES = {
            {"configmaps", "ConfigMap", "true"},
            {"secrets", "Secret", "true"},
            {"namespaces", "Namespace", "false"},
            {"events", "Event", "true"},
            {"pods", "Pod", "true"},
    };
    /** Loggers that report every request or connection at INFO; held so that their level sticks. */
    private static final List<Logger> CHATTY_LOGS = Stream.of("io.fabric8.mockwebserver", "io.vertx", "io.netty")
            .map(Logger::getLogger).toList();

    private final KubernetesMockServer server;

    private EmbeddedApiServer(KubernetesMockServer server) {
        this.server = server;
    }

    /** Starts the server on a free port of 127.0.0.1, with the discovery of the core resources. */
    public static EmbeddedApiServer start() {
        CHATTY_LOGS.forEach(log -> log.setLevel(Level.WARNING));
        // mixed: the expectations below first, CRUD for everything else; https as a real API server
        KubernetesMockServer server = CrudApiServer.start();
        APIResourceListBuilder core = new APIResourceListBuilder().withGroupVersion("v1");
        for (String[] resource : CORE_RESOURCES) {
            core.addNewResource().withName(resource[0]).withKind(resource[1])
                    .withNamespaced(Boolean.parseBoolean(resource[2])).endResource();
        }
        server.expect().get().withPath("/api/v1").andReturn(200, core.build()).always();
        return new EmbeddedApiServer(server);
    }

    /** The server's base URL, e.g. {@code https://127.0.0.1:PORT/}. */
    public String url() {
        return server.url("/");
    }

    /** A client of its own (the JDK HTTP client, as the shipped controllers use), trusting the server. */
    public KubernetesClient newClient() {
        return server.createClient(new JdkHttpClientFactory());
    }

    /**
     * Creates what the sharder and the shards expect of a cluster: the namespaces (labelled with
     * {@code kubernetes.io/metadata.name}, as a real API server does), the CRDs of both ring kinds and
     * the ring {@code ring} of the kind with ConfigMaps as its main resource and the Secrets they control.
     * Each create is one that may find its object there: the server's first requests are slow in a loaded
     * JVM, and a POST the client retried after a timeout finds what its first attempt created (409).
     */
    static void createCluster(KubernetesClient client, Path home, RingKind kind, String ring, String namespace)
            throws IOException {
        createCluster(client, home, kind, ring, namespace, 0);
    }

    /**
     * {@link #createCluster(KubernetesClient, Path, RingKind, String, String)}, the ring in range mode
     * ({@code spec.ranges: {key: uid, buckets: rangeBuckets}}) unless {@code rangeBuckets} is 0.
     */
    static void createCluster(KubernetesClient client, Path home, RingKind kind, String ring, String namespace,
            int rangeBuckets) throws IOException {
        for (String name : List.of("default", "kube-system", RingContract.SYSTEM_NAMESPACE, namespace)) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                    .addToLabels("kubernetes.io/metadata.name", name).endMetadata().build()).createOr(NonDeletingOperation::update);
        }
        for (RingKind crdKind : RingKind.values()) {
            try (InputStream crd = crdOfShippedSharder(home, crdKind)) {
                client.apiextensions().v1().customResourceDefinitions().load(crd).createOr(NonDeletingOperation::update);
            }
        }
        GenericKubernetesResource ringObject = new GenericKubernetesResource();
        ringObject.setApiVersion(RingContract.API_GROUP + "/" + RingContract.API_VERSION);
        ringObject.setKind(kind.kind());
        ringObject.setMetadata(new ObjectMetaBuilder().withName(ring).build());
        // no spec.strategy: the ring follows the sharder's defaultStrategy (which swap-strategy changes)
        Map<String, Object> spec = new java.util.LinkedHashMap<>();
        spec.put("resources", List.of(Map.of(
                "group", "",
                "resource", "configmaps",
                "controlledResources", List.of(Map.of("group", "", "resource", "secrets")))));
        if (rangeBuckets > 0) {
            spec.put("ranges", Map.of("key", "uid", "buckets", rangeBuckets));
        }
        ringObject.setAdditionalProperty("spec", spec);
        client.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION, kind.kind())
                .resource(ringObject).createOr(NonDeletingOperation::update);
    }

    /** The kind's CRD from the distribution's sharder bundle, {@code bundle/sharder-*.jar}. */
    public static InputStream crdOfShippedSharder(Path home, RingKind kind) throws IOException {
        Path bundles = home.resolve("bundle");
        List<Path> jars;
        try (Stream<Path> files = Files.list(bundles)) {
            jars = files.filter(file -> file.getFileName().toString().matches("sharder-.*\\.jar")).sorted().toList();
        }
        if (jars.size() != 1) {
            throw new IOException("expected one sharder-*.jar in " + bundles + ", found " + jars.size());
        }
        try (JarFile jar = new JarFile(jars.get(0).toFile())) {
            ZipEntry entry = jar.getEntry(crdEntry(kind));
            if (entry == null) {
                throw new IOException(jars.get(0) + " holds no " + crdEntry(kind));
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return new ByteArrayInputStream(in.readAllBytes());
            }
        }
    }

    @Override
    public void close() {
        server.destroy();
    }
}
