package dev.ringmaster.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Edits the text of a File Install {@code .cfg} file (Java properties syntax, one {@code key = value}
 * per line): the values of some keys are replaced where they are, keys the file lacks are appended,
 * and comments and every other line stay as they are.
 */
final class CfgText {

    private CfgText() {
    }

    /** The text with {@code values} set; keys in the order of the file, then new keys in map order. */
    static String override(String text, Map<String, String> values) {
        Map<String, String> missing = new LinkedHashMap<>(values);
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String key = key(line);
            if (key != null && values.containsKey(key)) {
                lines.add(line(key, values.get(key)));
                missing.remove(key);
            } else {
                lines.add(line);
            }
        }
        // the last element is what follows the last newline: empty for a file that ends with one
        String last = lines.remove(lines.size() - 1);
        if (!last.isEmpty()) {
            lines.add(last);
        }
        missing.forEach((key, value) -> lines.add(line(key, value)));
        return String.join("\n", lines) + "\n";
    }

    /** The key a line sets, or null for a blank line, a comment or a continued line's tail. */
    static String key(String line) {
        String stripped = line.strip();
        if (stripped.isEmpty() || stripped.startsWith("#") || stripped.startsWith("!")) {
            return null;
        }
        int end = 0;
        while (end < stripped.length() && "=: \t".indexOf(stripped.charAt(end)) < 0) {
            end++;
        }
        return stripped.substring(0, end);
    }

    private static String line(String key, String value) {
        return key + " = " + value.replace("\\", "\\\\");
    }
}
