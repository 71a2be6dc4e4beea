package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.ringmaster.plugins.labelguard.LabelGuardComponent;
import dev.ringmaster.plugins.labelguard.LabelGuardFixture;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example ValidatingWebhookConfiguration in manifests/label-guard/: only fields of the API, the
 * checks the API server's validation makes, match conditions that compile as the API server compiles
 * them (CEL, with object, oldObject and request as dynamic values) and that send the webhook every
 * request the guard would deny.
 */
class LabelGuardManifestTest {

    private static final Path DIRECTORY = Repository.resolve("manifests/label-guard");
    /** Kubernetes' DNS-1123 subdomain and qualified name (without prefix) rules. */
    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

    private static ValidatingWebhookConfiguration configuration;
    private static ValidatingWebhook webhook;
    private static List<CelRuntime.Program> conditions;

    /** Fails (CelValidationException from getAst()) on a syntax or type error, or a non-boolean result. */
    @BeforeAll
    static void load() throws Exception {
        configuration = new KubernetesSerialization().unmarshal(
                Files.readString(DIRECTORY.resolve("validatingwebhookconfiguration.yaml")),
                ValidatingWebhookConfiguration.class);
        webhook = configuration.getWebhooks().get(0);
        // cel-go's standard environment, which Kubernetes extends, has the standard macros (has, exists, ...)
        CelCompiler compiler = CelCompilerFactory.standardCelCompilerBuilder()
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addVar("object", SimpleType.DYN)
                .addVar("oldObject", SimpleType.DYN)
                .addVar("request", SimpleType.DYN)
                .setResultType(SimpleType.BOOL)
                .build();
        CelRuntime runtime = CelRuntimeFactory.standardCelRuntimeBuilder().build();
        conditions = new ArrayList<>();
        for (MatchCondition condition : webhook.getMatchConditions()) {
            CelAbstractSyntaxTree ast = compiler.compile(condition.getExpression()).getAst();
            conditions.add(runtime.createProgram(ast));
        }
    }

    @Test
    void usesOnlyFieldsOfTheApi() throws Exception {
        assertThat(configuration.getApiVersion()).isEqualTo("admissionregistration.k8s.io/v1");
        assertThat(configuration.getKind()).isEqualTo("ValidatingWebhookConfiguration");
        assertThat(unknownFields(configuration, "")).isEmpty();
    }

    @Test
    void passesTheApiServersValidation() {
        assertThat(configuration.getMetadata().getName()).matches(DNS1123_SUBDOMAIN);
        assertThat(configuration.getWebhooks()).hasSize(1);
        // a fully qualified name: a DNS subdomain of at least three segments
        assertThat(webhook.getName()).matches(DNS1123_SUBDOMAIN);
        assertThat(webhook.getName().split("\\.")).hasSizeGreaterThanOrEqualTo(3);
        assertThat(webhook.getAdmissionReviewVersions()).contains("v1");
        assertThat(webhook.getSideEffects()).isIn("None", "NoneOnDryRun");
        assertThat(webhook.getFailurePolicy()).isIn("Ignore", "Fail");
        assertThat(webhook.getMatchPolicy()).isIn("Exact", "Equivalent");
        assertThat(webhook.getTimeoutSeconds()).isBetween(1, 30);
        assertThat(webhook.getClientConfig().getUrl()).as("exactly one of url and service").isNull();
        ServiceReference service = webhook.getClientConfig().getService();
        assertThat(service.getName()).isNotEmpty();
        assertThat(service.getNamespace()).isNotEmpty();
        assertThat(service.getPort()).isBetween(1, 65535);
        String path = service.getPath();
        assertThat(path).startsWith("/");
        for (String segment : path.substring(1, path.endsWith("/") ? path.length() - 1 : path.length()).split("/")) {
            assertThat(segment).as("path segment").matches(DNS1123_SUBDOMAIN);
        }
        for (RuleWithOperations rule : webhook.getRules()) {
            assertThat(rule.getOperations()).isNotEmpty().isSubsetOf("CREATE", "UPDATE", "DELETE", "CONNECT", "*");
            assertThat(rule.getApiGroups()).isNotEmpty();
            assertThat(rule.getApiVersions()).isNotEmpty().doesNotContain("");
            assertThat(rule.getResources()).isNotEmpty().doesNotContain("");
            assertThat(rule.getScope()).isIn("*", "Cluster", "Namespaced");
        }
        assertThat(webhook.getMatchConditions()).hasSizeBetween(1, 64);
        assertThat(webhook.getMatchConditions()).extracting(MatchCondition::getName)
                .doesNotHaveDuplicates()
                .allSatisfy(name -> assertThat(name).hasSizeLessThanOrEqualTo(63).matches(QUALIFIED_NAME));
    }

    @Test
    void callsTheGuardsPathOfTheSharderServiceForUpdatesOnly() {
        ServiceReference service = webhook.getClientConfig().getService();
        assertThat(service.getNamespace()).isEqualTo(RingContract.SYSTEM_NAMESPACE);
        assertThat(service.getName()).isEqualTo("sharder");
        assertThat(service.getPath()).isEqualTo(LabelGuardComponent.PATH_PREFIX);
        assertThat(webhook.getRules()).flatExtracting(RuleWithOperations::getOperations).containsOnly("UPDATE");
        assertThat(webhook.getRules()).flatExtracting(RuleWithOperations::getResources)
                .noneMatch(resource -> resource.contains("/"));
    }

    @Test
    void trustsTheSameSharderAsTheGuardsConfiguration() throws IOException {
        Properties cfg = new Properties();
        try (Reader reader = Files.newBufferedReader(DIRECTORY.resolve("etc/dev.ringmaster.labelguard.cfg"))) {
            cfg.load(reader);
        }
        assertThat(cfg.getProperty("sharderUser")).isEqualTo(LabelGuardComponent.SHARDER_USER);
        assertThat(cfg.stringPropertyNames()).containsExactlyInAnyOrder("sharderUser", "trustedUsers", "trustedGroups",
                "allowDrainAcknowledgements");
        assertThat(webhook.getMatchConditions()).extracting(MatchCondition::getExpression)
                .anyMatch(expression -> expression.contains("'" + LabelGuardComponent.SHARDER_USER + "'"));
    }

    /**
     * The sharder gives this configuration the webhook's CA (its own, or cert-manager's annotation), so the
     * file carries neither a caBundle nor the annotation, which a later {@code kubectl apply} would
     * otherwise put back over the sharder's choice: the component's delivered sharder settings name it, and the
     * base's ClusterRole lets the sharder watch and patch it by name.
     */
    @Test
    void theSharderGivesItTheWebhooksCa() throws IOException {
        assertThat(configuration.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(webhook.getClientConfig().getCaBundle()).isNull();
        Properties sharder = new Properties();
        try (Reader reader = Files.newBufferedReader(Repository.resolve("manifests/label-guard/etc/dev.ringmaster.sharder.cfg"))) {
            sharder.load(reader);
        }
        assertThat(sharder.getProperty("webhookValidatingConfigurations").split(",")).extracting(String::trim)
                .contains(configuration.getMetadata().getName());
        ClusterRole role = new KubernetesSerialization().unmarshal(
                Files.readString(Repository.resolve("manifests/clusterrole.yaml")), ClusterRole.class);
        assertThat(role.getRules()).anySatisfy(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("admissionregistration.k8s.io");
            assertThat(rule.getResources()).containsExactly("validatingwebhookconfigurations");
            assertThat(rule.getResourceNames()).containsExactly(configuration.getMetadata().getName());
            assertThat(rule.getVerbs()).contains("get", "list", "watch", "patch");
        });
    }

    @Test
    void theKustomizeComponentNamesFilesThatExist() throws IOException {
        String kustomization = Files.readString(DIRECTORY.resolve("kustomization.yaml"));
        assertThat(kustomization).contains("kind: Component");
        for (String file : List.of("validatingwebhookconfiguration.yaml", "etc/dev.ringmaster.labelguard.cfg",
                "etc/dev.ringmaster.sharder.cfg")) {
            assertThat(kustomization).containsPattern("- (path: )?" + Pattern.quote(file) + "\n");
            assertThat(DIRECTORY.resolve(file)).isRegularFile();
        }
    }

    /**
     * Every combination of old and new labels over one ClusterRing's shard and drain labels, another
     * ClusterRing's shard label, a ControllerRing's shard label and an unrelated label, by an untrusted
     * user and by the sharder: the webhook is
     * called exactly when someone else changes a ring label, so no request the guard would deny is
     * left out, and none that changes no ring label costs a call.
     */
    @Test
    void theWebhookIsCalledExactlyWhenSomeoneButTheSharderChangesARingLabel() throws CelEvaluationException {
        Function<AdmissionRequest, AdmissionResponse> guard = LabelGuardFixture.guard(
                Set.of(LabelGuardComponent.SHARDER_USER), Set.of(), false);
        List<Map<String, String>> versions = labelVersions();
        int called = 0;
        for (String user : List.of("alice", LabelGuardComponent.SHARDER_USER)) {
            for (Map<String, String> before : versions) {
                for (Map<String, String> after : versions) {
                    boolean ringLabelChanged = !ringLabels(before).equals(ringLabels(after));
                    boolean sent = matches(user, before, after);
                    assertThat(sent).as("%s: %s -> %s", user, before, after)
                            .isEqualTo(ringLabelChanged && !user.equals(LabelGuardComponent.SHARDER_USER));
                    if (!sent) {
                        assertThat(guard.apply(request(user, before, after)).allowed())
                                .as("skipped, so it must be allowed: %s: %s -> %s", user, before, after).isTrue();
                    } else {
                        called++;
                    }
                }
            }
        }
        assertThat(called).isPositive();
    }

    @Test
    void objectsWithoutLabelsAreEvaluatedWithoutError() throws CelEvaluationException {
        Map<String, Object> bare = Map.of("metadata", Map.of("name", "foo"));
        Map<String, Object> labelled = Map.of("metadata",
                Map.of("name", "foo", "labels", Map.of(RingContract.shardLabel("example"), "shard-0")));
        assertThat(evaluate("alice", bare, bare)).isFalse();
        assertThat(evaluate("alice", bare, labelled)).isTrue();
        assertThat(evaluate("alice", labelled, bare)).isTrue();
    }

    private static List<Map<String, String>> labelVersions() {
        String shard = RingContract.shardLabel("example");
        String drain = RingContract.drainLabel("example");
        String otherShard = RingContract.shardLabel("other");
        // the ControllerRing "example": its label ends in the name alone (docs/design.md section 1)
        String controllerRingShard = "shard.alpha.sharding.timebertt.dev/example";
        List<Map<String, String>> versions = new ArrayList<>();
        for (String shardValue : new String[] {null, "shard-0", "shard-1"}) {
            for (String drainValue : new String[] {null, "true"}) {
                for (String otherValue : new String[] {null, "shard-0"}) {
                    for (String controllerRingValue : new String[] {null, "shard-0"}) {
                        for (String appValue : new String[] {null, "web"}) {
                            Map<String, String> labels = new LinkedHashMap<>();
                            put(labels, shard, shardValue);
                            put(labels, drain, drainValue);
                            put(labels, otherShard, otherValue);
                            put(labels, controllerRingShard, controllerRingValue);
                            put(labels, "app", appValue);
                            versions.add(labels);
                        }
                    }
                }
            }
        }
        return versions;
    }

    private static void put(Map<String, String> labels, String key, String value) {
        if (value != null) {
            labels.put(key, value);
        }
    }

    private static Map<String, String> ringLabels(Map<String, String> labels) {
        Map<String, String> ring = new HashMap<>(labels);
        ring.remove("app");
        return ring;
    }

    /** An object as the API server hands it to CEL: no {@code labels} key when there are none. */
    private static Map<String, Object> object(Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", "foo");
        metadata.put("namespace", "default");
        if (!labels.isEmpty()) {
            metadata.put("labels", labels);
        }
        return Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", metadata);
    }

    private static boolean matches(String user, Map<String, String> before, Map<String, String> after)
            throws CelEvaluationException {
        return evaluate(user, object(before), object(after));
    }

    /** All match conditions true: the API server calls the webhook. */
    private static boolean evaluate(String user, Map<String, Object> before, Map<String, Object> after)
            throws CelEvaluationException {
        Map<String, Object> variables = Map.of("object", after, "oldObject", before,
                "request", Map.of("operation", "UPDATE", "userInfo", Map.of("username", user)));
        for (CelRuntime.Program condition : conditions) {
            if (!(Boolean) condition.eval(variables)) {
                return false;
            }
        }
        return true;
    }

    private static AdmissionRequest request(String user, Map<String, String> before, Map<String, String> after) {
        return new AdmissionRequest("uid", "UPDATE", "", "v1", "ConfigMap", "", "configmaps", "", "default", "foo", user,
                List.of(), false, object(after), object(before));
    }

    /** Paths of fields the model did not recognise (kept in additionalProperties), anywhere in the tree. */
    private static List<String> unknownFields(Object node, String path) throws Exception {
        List<String> unknown = new ArrayList<>();
        if (node instanceof Collection<?> collection) {
            int i = 0;
            for (Object element : collection) {
                unknown.addAll(unknownFields(element, path + "[" + i++ + "]"));
            }
            return unknown;
        }
        if (!(node instanceof KubernetesResource)) {
            return unknown;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value = getter.invoke(node);
            if (getter.getName().equals("getAdditionalProperties")) {
                ((Map<?, ?>) value).keySet().forEach(key -> unknown.add(path + "." + key));
            } else if (value instanceof KubernetesResource || value instanceof Collection<?>) {
                unknown.addAll(unknownFields(value, path + "." + getter.getName().substring(3)));
            }
        }
        return unknown;
    }
}
