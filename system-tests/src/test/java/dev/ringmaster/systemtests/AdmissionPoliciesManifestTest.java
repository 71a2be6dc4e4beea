package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.NullValue;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sharder.app.SharderSettings;
import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ValidatingAdmissionPolicy of manifests/admission-policies/ evaluated at unit speed with CEL (cel-java, the
 * standard macros and the strings extension Kubernetes has too), against the names the sharder's code gives
 * what it writes: every ring webhook configuration name RingKind makes (ring names of 1 to 63 characters, so
 * the ClusterRing's cut at 63 characters is among them), the shard Lease labels of both kinds, the election
 * Lease of SharderSettings, the certificate Secrets of WebhookCertificates. AdmissionPoliciesRealIT runs it on
 * kube-apiserver; this covers the names in breadth.
 */
class AdmissionPoliciesManifestTest {

    private static final Path DIRECTORY = Repository.resolve("manifests/admission-policies");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Map<String, CelRuntime.Program> PROGRAMS = new HashMap<>();

    private static ValidatingAdmissionPolicy policy;
    private static String sharderUser;
    private static String namespace;
    private static CelCompiler compiler;
    private static CelRuntime runtime;

    @BeforeAll
    static void load() throws IOException {
        policy = SERIALIZATION.unmarshal(Files.readString(DIRECTORY.resolve("validatingadmissionpolicy.yaml")),
                ValidatingAdmissionPolicy.class);
        ServiceAccount account = SERIALIZATION.unmarshal(Files.readString(Repository.resolve("manifests/serviceaccount.yaml")),
                ServiceAccount.class);
        namespace = account.getMetadata().getNamespace();
        sharderUser = "system:serviceaccount:" + namespace + ":" + account.getMetadata().getName();
        compiler = CelCompilerFactory.standardCelCompilerBuilder()
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addLibraries(CelExtensions.strings())
                .addVar("object", SimpleType.DYN)
                .addVar("oldObject", SimpleType.DYN)
                .addVar("request", SimpleType.DYN)
                .addVar("variables", SimpleType.DYN)
                .build();
        runtime = CelRuntimeFactory.standardCelRuntimeBuilder().addLibraries(CelExtensions.strings()).build();
    }

    @Test
    void theComponentHoldsThePolicyAndItsBindingAndDenies() throws IOException {
        Map<?, ?> kustomization = SERIALIZATION.unmarshal(Files.readString(DIRECTORY.resolve("kustomization.yaml")), Map.class);
        assertThat(kustomization.get("kind")).isEqualTo("Component");
        assertThat(kustomization.get("resources"))
                .isEqualTo(List.of("validatingadmissionpolicy.yaml", "validatingadmissionpolicybinding.yaml"));
        ValidatingAdmissionPolicyBinding binding = SERIALIZATION.unmarshal(
                Files.readString(DIRECTORY.resolve("validatingadmissionpolicybinding.yaml")), ValidatingAdmissionPolicyBinding.class);
        assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(binding.getSpec().getMatchResources()).as("every namespace").isNull();
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(ModelFields.unknown(policy)).isEmpty();
        assertThat(ModelFields.unknown(binding)).isEmpty();
        // what RBAC grants broadly (docs/install.md, "Permissions"): each write the policy must see
        assertThat(policy.getSpec().getMatchConstraints().getResourceRules())
                .extracting(rule -> rule.getApiGroups() + " " + rule.getResources() + " " + rule.getOperations())
                .containsExactlyInAnyOrder("[coordination.k8s.io] [leases] [CREATE, UPDATE, DELETE]",
                        "[admissionregistration.k8s.io] [mutatingwebhookconfigurations] [CREATE, UPDATE, DELETE]",
                        "[] [secrets] [CREATE]");
        for (NamedRuleWithOperations rule : policy.getSpec().getMatchConstraints().getResourceRules()) {
            assertThat(rule.getApiVersions()).containsExactly("*");
        }
    }

    @Test
    void onlyTheSharderIsMatched() throws Exception {
        Map<String, Object> lease = object("node-a", Map.of(), List.of());
        assertThat(matches(request("leases", "UPDATE", "kube-node-lease", "node-a", sharderUser), lease, lease)).isTrue();
        for (String other : List.of("kubernetes-admin", "system:serviceaccount:other:sharder",
                "system:serviceaccount:" + namespace + ":shard", "system:node:node-a")) {
            assertThat(matches(request("leases", "UPDATE", "kube-node-lease", "node-a", other), lease, lease)).as(other).isFalse();
        }
    }

    @Test
    void shardLeasesOfEitherKindMayBeWrittenButNotCreated() throws Exception {
        for (RingKind kind : RingKind.values()) {
            Map<String, Object> shard = object("shard-0", Map.of(kind.leaseLabel(), "example", "team", "a"), List.of());
            assertThat(denial("leases", "UPDATE", "team-a", shard, shard)).as(kind.kind()).isEmpty();
            assertThat(denial("leases", "DELETE", "team-a", null, shard)).as(kind.kind()).isEmpty();
            assertThat(denial("leases", "CREATE", namespace, shard, null)).as(kind.kind())
                    .hasValueSatisfying(message -> assertThat(message).endsWith("CREATE of Lease " + namespace + "/shard-0 refused"));
            Map<String, Object> unlabelled = object("shard-0", Map.of("team", "a"), List.of());
            assertThat(denial("leases", "UPDATE", "team-a", unlabelled, shard)).as("the ring label removed").isPresent();
            assertThat(denial("leases", "UPDATE", "team-a", shard, unlabelled)).as("a ring label added").isPresent();
            Map<String, Object> emptyRing = object("shard-0", Map.of(kind.leaseLabel(), ""), List.of());
            assertThat(denial("leases", "UPDATE", "team-a", emptyRing, emptyRing)).as("no ring named").isPresent();
        }
        Map<String, Object> heartbeat = object("node-a", Map.of(), List.of());
        assertThat(denial("leases", "UPDATE", "kube-node-lease", heartbeat, heartbeat)).hasValue(
                "the sharder may write only shard Leases (labelled alpha.sharding.timebertt.dev/clusterring or "
                        + "alpha.sharding.timebertt.dev/controllerring) and create and write only its own election Lease "
                        + "sharder: UPDATE of Lease kube-node-lease/node-a refused");
        assertThat(denial("leases", "DELETE", "kube-system", null, object("kube-scheduler", Map.of(), List.of()))).isPresent();
    }

    @Test
    void theElectionLeaseInTheSharderNamespaceOnly() throws Exception {
        String name = (String) SharderSettings.class.getMethod("leaderElectionLease").getDefaultValue();
        assertThat(SharderSettings.class.getMethod("leaderElectionNamespace").getDefaultValue()).isEqualTo(namespace);
        Map<String, Object> election = object(name, Map.of(), List.of());
        for (String operation : List.of("CREATE", "UPDATE", "DELETE")) {
            assertThat(denial("leases", operation, namespace, operation.equals("DELETE") ? null : election,
                    operation.equals("CREATE") ? null : election)).as(operation).isEmpty();
        }
        assertThat(denial("leases", "CREATE", "team-a", election, null)).as("in another namespace").isPresent();
        assertThat(denial("leases", "CREATE", namespace, object(name + "-2", Map.of(), List.of()), null)).isPresent();
    }

    @Test
    void theRingsWebhookConfigurationsByEveryNameRingKindGives() throws Exception {
        for (RingKind kind : RingKind.values()) {
            for (int length = 1; length <= 63; length++) {
                String ring = ("r" + "abcdefghijklmnopqrstuvwxyz0123456789".repeat(2)).substring(0, length);
                String name = kind.webhookConfigurationName(ring);
                Map<String, Object> owned = object(name, Map.of(), List.of(owner(kind.kind(), ring)));
                assertThat(denial("mutatingwebhookconfigurations", "CREATE", "", owned, null)).as(name).isEmpty();
                assertThat(denial("mutatingwebhookconfigurations", "UPDATE", "", owned, owned)).as(name).isEmpty();
                assertThat(denial("mutatingwebhookconfigurations", "DELETE", "", null, owned)).as(name).isEmpty();

                RingKind otherKind = kind == RingKind.CLUSTER_RING ? RingKind.CONTROLLER_RING : RingKind.CLUSTER_RING;
                if (kind == RingKind.CONTROLLER_RING || length < 42) {
                    // (a ClusterRing's name keeps 42 characters of the ring's; CEL has no SHA-256 to tell longer ones apart)
                    assertThat(denial("mutatingwebhookconfigurations", "CREATE", "",
                            object(name, Map.of(), List.of(owner(kind.kind(), ring + "x"))), null)).as("owned by %sx", ring).isPresent();
                }
                assertThat(denial("mutatingwebhookconfigurations", "CREATE", "",
                        object(name, Map.of(), List.of(owner(otherKind.kind(), ring))), null)).as("owned by a %s", otherKind).isPresent();
                assertThat(denial("mutatingwebhookconfigurations", "UPDATE", "", owned,
                        object(name, Map.of(), List.of()))).as("taken over: no ring owned it before").isPresent();
            }
        }
        assertThat(denial("mutatingwebhookconfigurations", "CREATE", "", object("intercept-everything", Map.of(), List.of()), null))
                .hasValue("the sharder may write only its rings' MutatingWebhookConfigurations (controllerring-<ring> or "
                        + "sharding-clusterring-<hash>-<ring>, controlled by that ControllerRing or ClusterRing): "
                        + "CREATE of MutatingWebhookConfiguration intercept-everything refused");
    }

    @Test
    void onlyTheCertificateSecretsAreCreated() throws Exception {
        WebhookCertificates.Settings settings = new WebhookCertificates.Settings(namespace, WebhookClientSettings.DEFAULT_SERVICE.name(),
                WebhookCertificates.Settings.DEFAULT_CA_VALIDITY, WebhookCertificates.Settings.DEFAULT_CERTIFICATE_VALIDITY,
                Optional.empty());
        for (String name : List.of(settings.caSecret(), settings.tlsSecret())) {
            assertThat(denial("secrets", "CREATE", namespace, object(name, Map.of(), List.of()), null)).as(name).isEmpty();
            assertThat(denial("secrets", "CREATE", "team-a", object(name, Map.of(), List.of()), null)).as(name).isPresent();
        }
        assertThat(denial("secrets", "CREATE", namespace, object("stolen", Map.of(), List.of()), null)).hasValue(
                "the sharder may create only the Secrets of its webhook certificates (sharder-webhook-ca, "
                        + "sharder-webhook-tls in its own namespace): CREATE of Secret " + namespace + "/stolen refused");
    }

    // ---- the policy, evaluated as the API server does for one request of the sharder

    /** The message of the first validation that fails, empty if the request is allowed. */
    private static Optional<String> denial(String resource, String operation, String requestNamespace,
            Map<String, Object> object, Map<String, Object> oldObject) throws Exception {
        String name = (String) ((Map<?, ?>) (object != null ? object : oldObject).get("metadata")).get("name");
        Map<String, Object> request = request(resource, operation, requestNamespace, name, sharderUser);
        assertThat(matches(request, object, oldObject)).isTrue();
        Map<String, Object> bindings = bindings(request, object, oldObject);
        Map<String, Object> variables = new LinkedHashMap<>();
        bindings.put("variables", variables);
        for (Variable variable : policy.getSpec().getVariables()) {
            variables.put(variable.getName(), evaluate(variable.getExpression(), bindings));
        }
        for (Validation validation : policy.getSpec().getValidations()) {
            if (!Boolean.TRUE.equals(evaluate(validation.getExpression(), bindings))) {
                return Optional.of((String) evaluate(validation.getMessageExpression(), bindings));
            }
        }
        return Optional.empty();
    }

    private static boolean matches(Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject)
            throws Exception {
        Map<String, Object> bindings = bindings(request, object, oldObject);
        bindings.put("variables", Map.of());
        List<Boolean> results = new ArrayList<>();
        for (var condition : policy.getSpec().getMatchConditions()) {
            results.add(Boolean.TRUE.equals(evaluate(condition.getExpression(), bindings)));
        }
        return !results.isEmpty() && results.stream().allMatch(Boolean::booleanValue);
    }

    /** What the API server binds; the object absent from a request is CEL's null (a Java null would be unknown). */
    private static Map<String, Object> bindings(Map<String, Object> request, Map<String, Object> object,
            Map<String, Object> oldObject) {
        Map<String, Object> bindings = new HashMap<>();
        bindings.put("object", object == null ? NullValue.NULL_VALUE : object);
        bindings.put("oldObject", oldObject == null ? NullValue.NULL_VALUE : oldObject);
        bindings.put("request", request);
        return bindings;
    }

    /** Compiled once per expression: a syntax error fails (CelValidationException). */
    private static Object evaluate(String expression, Map<String, Object> bindings) throws Exception {
        CelRuntime.Program program = PROGRAMS.get(expression);
        if (program == null) {
            program = runtime.createProgram(compiler.compile(expression).getAst());
            PROGRAMS.put(expression, program);
        }
        return program.eval(bindings);
    }

    private static Map<String, Object> request(String resource, String operation, String requestNamespace, String name,
            String user) {
        return Map.of("resource", Map.of("resource", resource), "operation", operation, "namespace", requestNamespace,
                "name", name, "userInfo", Map.of("username", user));
    }

    private static Map<String, Object> object(String name, Map<String, String> labels, List<Map<String, Object>> owners) {
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("name", name);
        if (!labels.isEmpty()) {
            metadata.put("labels", labels);
        }
        if (!owners.isEmpty()) {
            metadata.put("ownerReferences", owners);
        }
        return Map.of("metadata", metadata);
    }

    /** A ring's controller owner reference, as WebhookConfigurations writes it. */
    private static Map<String, Object> owner(String kind, String ring) {
        return Map.of("apiVersion", "sharding.timebertt.dev/v1alpha1", "kind", kind, "name", ring, "uid", "u-" + ring,
                "controller", true, "blockOwnerDeletion", true);
    }
}
