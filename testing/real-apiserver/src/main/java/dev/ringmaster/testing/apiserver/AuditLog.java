package dev.ringmaster.testing.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The API server's audit log, as JSON lines: one event per finished write request (create, update,
 * patch, delete), with who made it, on what, when and with which status code. Reads and watches
 * are not logged, to keep the log small.
 */
public final class AuditLog {

    /** The audit policy the server runs with. */
    static final String POLICY = """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            omitStages: [RequestReceived, ResponseStarted]
            rules:
            - level: Metadata
              verbs: [create, update, patch, delete, deletecollection]
            - level: None
            """;
    /** Writes as {@link #POLICY}, and reads too: gets and lists when answered, watches when they start. */
    static final String POLICY_WITH_READS = """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            omitStages: [RequestReceived]
            rules:
            - level: Metadata
              verbs: [create, update, patch, delete, deletecollection, get, list, watch]
            - level: None
            """;

    private static final Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;

    AuditLog(Path file) {
        this.file = file;
    }

    /** One write request as the API server saw it. */
    public record Event(Instant received, String verb, String user, Optional<String> credentialId,
            String resource, String namespace, String name, int code) {

        /** Whether the request was made with the token whose credential id this is. */
        public boolean madeWith(String credential) {
            return credentialId.filter(credential::equals).isPresent();
        }
    }

    /** Every write request logged so far. */
    public List<Event> events() {
        return logged(event -> WRITES.contains(event.path("verb").asText())
                && "ResponseComplete".equals(event.path("stage").asText()));
    }

    /**
     * Every read logged so far, on a server started with reads in its policy ({@link RealApiServer#shardedListAndWatch()}):
     * gets and lists once answered, watches once started (a watch ends only when it is closed).
     */
    public List<Event> reads() {
        return logged(event -> switch (event.path("verb").asText()) {
            case "get", "list" -> "ResponseComplete".equals(event.path("stage").asText());
            case "watch" -> "ResponseStarted".equals(event.path("stage").asText());
            default -> false;
        });
    }

    private List<Event> logged(Predicate<JsonNode> wanted) {
        List<Event> events = new ArrayList<>();
        try {
            if (!Files.exists(file)) {
                return events;
            }
            for (String line : Files.readAllLines(file)) {
                if (!line.isBlank()) {
                    JsonNode event = JSON.readTree(line);
                    if (wanted.test(event)) {
                        events.add(parse(event));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return events;
    }

    private static Event parse(JsonNode event) {
        JsonNode user = event.path("user");
        JsonNode credential = user.path("extra").path("authentication.kubernetes.io/credential-id").path(0);
        JsonNode object = event.path("objectRef");
        return new Event(Instant.parse(event.path("requestReceivedTimestamp").asText()), event.path("verb").asText(),
                user.path("username").asText(), credential.isMissingNode() ? Optional.empty() : Optional.of(credential.asText()),
                object.path("resource").asText(), object.path("namespace").asText(), object.path("name").asText(),
                event.path("responseStatus").path("code").asInt());
    }
}
