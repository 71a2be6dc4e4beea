package dev.ringmaster.webhook.review;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code admission.k8s.io/v1} AdmissionReview requests and writes their responses, with
 * Jackson's streaming API: only the fields the {@link AdmissionRequest} carries are read, the objects
 * as plain maps and lists, so a request costs no reflection and no databind. One instance serves all
 * requests concurrently.
 */
public final class AdmissionReviewCodec {

    public static final String API_VERSION = "admission.k8s.io/v1";
    public static final String KIND = "AdmissionReview";

    private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();
    private static final byte[] REVIEW_START = ascii("{\"apiVersion\":\"" + API_VERSION + "\",\"kind\":\"" + KIND
            + "\",\"response\":{\"uid\":");
    private static final byte[] ALLOWED = ascii(",\"allowed\":true");
    private static final byte[] DENIED = ascii(",\"allowed\":false");
    private static final byte[] STATUS_CODE = ascii(",\"status\":{\"code\":");
    private static final byte[] MESSAGE = ascii(",\"message\":");
    private static final byte[] PATCH = ascii(",\"patchType\":\"JSONPatch\",\"patch\":\"");
    private static final byte[] WARNINGS = ascii(",\"warnings\":[");
    private static final byte[] CLOSE_REVIEW = ascii("}}");
    private static final byte[] OPEN_ARRAY = ascii("[");
    private static final byte[] CLOSE_ARRAY = ascii("]");
    private static final byte[] CLOSE_OBJECT = ascii("}");
    private static final byte[] QUOTE = ascii("\"");
    private static final byte[] COMMA = ascii(",");
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] NULL = ascii("null");
    private static final byte[] OP = ascii("{\"op\":");
    private static final byte[] NEXT_OP = ascii(",{\"op\":");
    private static final byte[] PATH = ascii(",\"path\":");
    private static final byte[] VALUE = ascii(",\"value\":");

    private final JsonFactory factory;
    private final ObjectWriter valueWriter;

    public AdmissionReviewCodec() {
        ObjectMapper mapper = new ObjectMapper();
        this.factory = mapper.getFactory();
        this.valueWriter = mapper.writer();
    }

    /** What the parser has seen so far; the uid is echoed even when a later part is bad. */
    private static final class Fields {
        String apiVersion;
        String kind;
        boolean hasRequest;
        String uid;
        String operation;
        String group;
        String version;
        String objectKind;
        String resourceGroup;
        String resource;
        String subResource;
        String namespace;
        String name;
        String username;
        List<String> userGroups;
        boolean dryRun;
        Map<String, Object> object;
        Map<String, Object> oldObject;
    }

    /**
     * @throws BadReviewException for anything but a JSON AdmissionReview of {@value #API_VERSION} with a
     *                            {@code request.uid}; the message says what is wrong
     */
    public AdmissionRequest parse(byte[] body, int length) throws BadReviewException {
        Fields fields = new Fields();
        try (JsonParser parser = factory.createParser(body, 0, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new BadReviewException("the body is not a JSON object", null);
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                parser.nextToken();
                switch (field) {
                    case "apiVersion" -> fields.apiVersion = string(parser, "apiVersion", fields);
                    case "kind" -> fields.kind = string(parser, "kind", fields);
                    case "request" -> readRequest(parser, fields);
                    default -> parser.skipChildren();
                }
            }
            if (parser.nextToken() != null) {
                throw new BadReviewException("unexpected content after the JSON object", fields.uid);
            }
        } catch (IOException e) {
            throw new BadReviewException("malformed JSON: " + oneLine(e), fields.uid);
        }
        return validated(fields);
    }

    private AdmissionRequest validated(Fields fields) throws BadReviewException {
        if (!API_VERSION.equals(fields.apiVersion) || !KIND.equals(fields.kind)) {
            throw new BadReviewException("expected apiVersion " + API_VERSION + " and kind " + KIND + ", got "
                    + (fields.apiVersion == null ? "no apiVersion" : "apiVersion " + fields.apiVersion) + " and "
                    + (fields.kind == null ? "no kind" : "kind " + fields.kind), fields.uid);
        }
        if (!fields.hasRequest) {
            throw new BadReviewException("the AdmissionReview has no request", null);
        }
        if (fields.uid == null || fields.uid.isEmpty()) {
            throw new BadReviewException("the AdmissionReview has no request.uid", null);
        }
        return new AdmissionRequest(fields.uid, fields.operation, fields.group, fields.version, fields.objectKind,
                fields.resourceGroup, fields.resource, fields.subResource, fields.namespace, fields.name,
                fields.username, fields.userGroups, fields.dryRun, fields.object, fields.oldObject);
    }

    private void readRequest(JsonParser parser, Fields fields) throws IOException, BadReviewException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        expectObject(parser, "request", fields);
        fields.hasRequest = true;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "uid" -> fields.uid = string(parser, "request.uid", fields);
                case "operation" -> fields.operation = string(parser, "request.operation", fields);
                case "subResource" -> fields.subResource = string(parser, "request.subResource", fields);
                case "namespace" -> fields.namespace = string(parser, "request.namespace", fields);
                case "name" -> fields.name = string(parser, "request.name", fields);
                case "dryRun" -> fields.dryRun = bool(parser, "request.dryRun", fields);
                case "kind" -> readKind(parser, fields);
                case "resource" -> readResource(parser, fields);
                case "userInfo" -> readUserInfo(parser, fields);
                case "object" -> fields.object = object(parser, "request.object", fields);
                case "oldObject" -> fields.oldObject = object(parser, "request.oldObject", fields);
                default -> parser.skipChildren();
            }
        }
    }

    private static void readKind(JsonParser parser, Fields fields) throws IOException, BadReviewException {
        if (nullOrObject(parser, "request.kind", fields)) {
            return;
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "group" -> fields.group = string(parser, "request.kind.group", fields);
                case "version" -> fields.version = string(parser, "request.kind.version", fields);
                case "kind" -> fields.objectKind = string(parser, "request.kind.kind", fields);
                default -> parser.skipChildren();
            }
        }
    }

    private static void readResource(JsonParser parser, Fields fields) throws IOException, BadReviewException {
        if (nullOrObject(parser, "request.resource", fields)) {
            return;
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "group" -> fields.resourceGroup = string(parser, "request.resource.group", fields);
                case "resource" -> fields.resource = string(parser, "request.resource.resource", fields);
                default -> parser.skipChildren();
            }
        }
    }

    private static void readUserInfo(JsonParser parser, Fields fields) throws IOException, BadReviewException {
        if (nullOrObject(parser, "request.userInfo", fields)) {
            return;
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "username" -> fields.username = string(parser, "request.userInfo.username", fields);
                case "groups" -> fields.userGroups = strings(parser, "request.userInfo.groups", fields);
                default -> parser.skipChildren();
            }
        }
    }

    private static Map<String, Object> object(JsonParser parser, String what, Fields fields)
            throws IOException, BadReviewException {
        if (nullOrObject(parser, what, fields)) {
            return null;
        }
        return map(parser);
    }

    /**
     * The object the parser is at, as maps, lists, strings, numbers, booleans and nulls (what databind's
     * untyped deserializer makes, without a deserialization context per call: this runs on every request).
     */
    private static Map<String, Object> map(JsonParser parser) throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            map.put(field, value(parser));
        }
        return map;
    }

    private static Object value(JsonParser parser) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT:
                return map(parser);
            case START_ARRAY:
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser));
                }
                return list;
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return parser.getNumberValue(); // Integer, Long or BigInteger; Double
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new JsonParseException(parser, "unexpected " + parser.currentToken());
        }
    }

    /** True for null; otherwise the current token must start an object. */
    private static boolean nullOrObject(JsonParser parser, String what, Fields fields) throws BadReviewException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return true;
        }
        expectObject(parser, what, fields);
        return false;
    }

    private static void expectObject(JsonParser parser, String what, Fields fields) throws BadReviewException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw new BadReviewException(what + " must be a JSON object", fields.uid);
        }
    }

    private static String string(JsonParser parser, String what, Fields fields) throws IOException, BadReviewException {
        return switch (parser.currentToken()) {
            case VALUE_STRING -> parser.getText();
            case VALUE_NULL -> null;
            default -> throw new BadReviewException(what + " must be a string", fields.uid);
        };
    }

    private static boolean bool(JsonParser parser, String what, Fields fields) throws BadReviewException {
        return switch (parser.currentToken()) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE, VALUE_NULL -> false;
            default -> throw new BadReviewException(what + " must be a boolean", fields.uid);
        };
    }

    private static List<String> strings(JsonParser parser, String what, Fields fields)
            throws IOException, BadReviewException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            throw new BadReviewException(what + " must be an array of strings", fields.uid);
        }
        List<String> values = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            if (parser.currentToken() != JsonToken.VALUE_STRING) {
                throw new BadReviewException(what + " must be an array of strings", fields.uid);
            }
            values.add(parser.getText());
        }
        return values;
    }

    /**
     * The AdmissionReview answering {@code uid}: {@code allowed}, a {@code status} when denied, a
     * base64 {@code JSONPatch} when there is a patch, {@code warnings} when there are any.
     *
     * <p>Written byte by byte (strings escaped by Jackson's encoder) rather than through a generator:
     * this runs on every request, and creating generators was a measurable share of it.
     *
     * @throws IllegalArgumentException if a patch value cannot be written as JSON
     */
    public byte[] response(String uid, AdmissionResponse response) {
        Json json = new Json(256);
        json.raw(REVIEW_START).string(uid).raw(response.allowed() ? ALLOWED : DENIED);
        if (!response.allowed()) {
            json.raw(STATUS_CODE).number(response.code());
            if (!response.message().isEmpty()) {
                json.raw(MESSAGE).string(response.message());
            }
            json.raw(CLOSE_OBJECT);
        }
        if (!response.patch().isEmpty()) {
            json.raw(PATCH).raw(Base64.getEncoder().encode(patch(response.patch()))).raw(QUOTE);
        }
        if (!response.warnings().isEmpty()) {
            json.raw(WARNINGS);
            for (int i = 0; i < response.warnings().size(); i++) {
                json.raw(i == 0 ? EMPTY : COMMA).string(response.warnings().get(i));
            }
            json.raw(CLOSE_ARRAY);
        }
        return json.raw(CLOSE_REVIEW).bytes();
    }

    /**
     * An error answer. With the request's uid: an AdmissionReview denying it, with the code, reason and
     * message as its status, so the uid is echoed. Without: a {@code v1 Status} of the same.
     */
    public byte[] error(String uid, int code, String reason, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = factory.createGenerator(out)) {
            if (uid != null) {
                startReview(json, uid, false);
                json.writeObjectFieldStart("status");
                writeStatusFields(json, code, reason, message);
                json.writeEndObject();
                json.writeEndObject();
            } else {
                json.writeStartObject();
                json.writeStringField("kind", "Status");
                json.writeStringField("apiVersion", "v1");
                json.writeObjectFieldStart("metadata");
                json.writeEndObject();
                writeStatusFields(json, code, reason, message);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void startReview(JsonGenerator json, String uid, boolean allowed) throws IOException {
        json.writeStartObject();
        json.writeStringField("apiVersion", API_VERSION);
        json.writeStringField("kind", KIND);
        json.writeObjectFieldStart("response");
        json.writeStringField("uid", uid);
        json.writeBooleanField("allowed", allowed);
    }

    private static void writeStatusFields(JsonGenerator json, int code, String reason, String message)
            throws IOException {
        json.writeStringField("status", "Failure");
        json.writeStringField("message", message);
        json.writeStringField("reason", reason);
        json.writeNumberField("code", code);
    }

    /** The operations as a JSON array: {@code [{"op":..,"path":..,"value":..}]}. */
    private byte[] patch(List<PatchOperation> operations) {
        Json json = new Json(128).raw(OPEN_ARRAY);
        for (int i = 0; i < operations.size(); i++) {
            PatchOperation operation = operations.get(i);
            json.raw(i == 0 ? OP : NEXT_OP).string(operation.op()).raw(PATH).string(operation.path());
            if (!operation.op().equals("remove")) {
                json.raw(VALUE);
                Object value = operation.value();
                if (value instanceof String text) {
                    json.string(text); // the common case: a label
                } else if (value == null) {
                    json.raw(NULL);
                } else {
                    try {
                        json.raw(valueWriter.writeValueAsBytes(value));
                    } catch (IOException e) {
                        throw new IllegalArgumentException("patch value of " + operation.path()
                                + " cannot be written as JSON: " + e.getMessage(), e);
                    }
                }
            }
            json.raw(CLOSE_OBJECT);
        }
        return json.raw(CLOSE_ARRAY).bytes();
    }

    /** A growing UTF-8 buffer of JSON text. */
    private static final class Json {
        private byte[] bytes;
        private int size;

        Json(int capacity) {
            bytes = new byte[capacity];
        }

        Json raw(byte[] text) {
            if (size + text.length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + text.length));
            }
            System.arraycopy(text, 0, bytes, size, text.length);
            size += text.length;
            return this;
        }

        Json string(String text) {
            return raw(QUOTE).raw(ENCODER.quoteAsUTF8(text)).raw(QUOTE);
        }

        Json number(int value) {
            return raw(Integer.toString(value).getBytes(StandardCharsets.US_ASCII));
        }

        byte[] bytes() {
            return Arrays.copyOf(bytes, size);
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String oneLine(IOException e) {
        String message = e instanceof com.fasterxml.jackson.core.JsonProcessingException json
                ? json.getOriginalMessage() + " at " + location(json) : String.valueOf(e.getMessage());
        return message.replaceAll("\\R+", " ").strip();
    }

    private static String location(com.fasterxml.jackson.core.JsonProcessingException e) {
        return e.getLocation() == null ? "unknown position"
                : "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
    }
}
