package dev.ringmaster.plugins.support;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A list-valued configuration property as Config Admin delivers it: a typed array or collection (from
 * a {@code .config} file, {@code key = ["a", "b"]}), whose elements are taken as they are, or one
 * string (from a {@code .cfg} file, where every value is text), which is a comma-separated list.
 */
public final class ConfigLists {

    private ConfigLists() {
    }

    /** The non-blank elements, trimmed, in order and without duplicates. */
    public static Set<String> strings(Object value) {
        List<String> elements = new ArrayList<>();
        if (value instanceof String text) {
            elements.addAll(List.of(text.split(",")));
        } else if (value instanceof Object[] array) {
            for (Object element : array) {
                elements.add(String.valueOf(element));
            }
        } else if (value instanceof Collection<?> collection) {
            collection.forEach(element -> elements.add(String.valueOf(element)));
        } else if (value != null) {
            elements.add(String.valueOf(value));
        }
        Set<String> result = new LinkedHashSet<>();
        for (String element : elements) {
            if (!element.isBlank()) {
                result.add(element.trim());
            }
        }
        return result;
    }
}
