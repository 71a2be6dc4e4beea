package dev.ringmaster.itests.support;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the fields of {@code ringmaster simulate --json}'s one object: numbers and strings, maps of
 * numbers ({@code perShard}), and maps of flat objects ({@code perShard} of {@code simulate --ring}).
 * Enough for these tests; no JSON library needed inside the framework.
 */
public final class Json {

    private static final Pattern OBJECT = Pattern.compile("\\s*\\{.*}\\s*", Pattern.DOTALL);
    private static final String NUMBER = "(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)";
    private static final Pattern ENTRY = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\":" + NUMBER);
    private static final Pattern MEMBER = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\":(\\{[^{}]*})");

    private final String text;

    private Json(String text) {
        this.text = text;
    }

    public static Json parse(String text) {
        if (!OBJECT.matcher(text).matches()) {
            throw new AssertionError("not one JSON object: " + text);
        }
        return new Json(text.strip());
    }

    public String string(String field) {
        return group(field, "\"((?:[^\"\\\\]|\\\\.)*)\"");
    }

    public double number(String field) {
        return Double.parseDouble(group(field, NUMBER));
    }

    public int integer(String field) {
        return Integer.parseInt(group(field, "(-?[0-9]+)(?![.0-9eE])"));
    }

    /** A map-valued field with whole numbers as values, in document order. */
    public Map<String, Integer> counts(String field) {
        return entries(field, Integer::parseInt);
    }

    /** A map-valued field with numbers as values, in document order. */
    public Map<String, Double> numbers(String field) {
        return entries(field, Double::parseDouble);
    }

    private <T> Map<String, T> entries(String field, Function<String, T> parser) {
        String body = group(field, "\\{([^{}]*)}");
        Map<String, T> entries = new LinkedHashMap<>();
        Matcher entry = ENTRY.matcher(body);
        int end = 0;
        while (entry.find()) {
            entries.put(entry.group(1), parser.apply(entry.group(2)));
            end = entry.end();
        }
        if (!body.substring(end).isBlank() && !body.isBlank()) {
            throw new AssertionError("cannot read " + field + " of " + text);
        }
        return entries;
    }

    /** A map-valued field with flat objects as values, in document order. */
    public Map<String, Json> members(String field) {
        String body = group(field, "\\{((?:\"(?:[^\"\\\\]|\\\\.)*\":\\{[^{}]*},?)*)}");
        Map<String, Json> members = new LinkedHashMap<>();
        Matcher member = MEMBER.matcher(body);
        while (member.find()) {
            members.put(member.group(1), parse(member.group(2)));
        }
        return members;
    }

    private String group(String field, String valuePattern) {
        Matcher matcher = Pattern.compile("[{,]\"" + Pattern.quote(field) + "\":" + valuePattern).matcher(text);
        if (!matcher.find()) {
            throw new AssertionError("no " + field + " in " + text);
        }
        return matcher.group(1);
    }

    @Override
    public String toString() {
        return text;
    }
}
