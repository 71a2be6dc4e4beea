package dev.ringmaster.systemtests;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** What a manifest says that the fabric8 model it was read into does not know: typos, misplaced keys. */
final class ModelFields {

    private ModelFields() {
    }

    /**
     * The paths of the fields of a fabric8 model object (and of the model objects in it) that the
     * model does not know: it keeps them in additionalProperties instead of failing.
     */
    static List<String> unknown(Object object) {
        List<String> unknown = new ArrayList<>();
        collect(object, "", unknown);
        return unknown;
    }

    private static void collect(Object object, String path, List<String> unknown) {
        if (object == null) {
            return;
        }
        if (object instanceof Collection<?> collection) {
            int i = 0;
            for (Object element : collection) {
                collect(element, path + "[" + i++ + "]", unknown);
            }
            return;
        }
        if (object instanceof Map<?, ?> map) {
            map.forEach((key, value) -> collect(value, path + "." + key, unknown));
            return;
        }
        if (!object.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Class<?> type = object.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                field.setAccessible(true);
                Object value;
                try {
                    value = field.get(object);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                // (JSONSchemaProps has a schema field of that name: not a map)
                if (field.getName().equals("additionalProperties") && Map.class.isAssignableFrom(field.getType())) {
                    (value == null ? Map.of() : (Map<?, ?>) value).keySet().forEach(key -> unknown.add(path + "." + key));
                } else {
                    collect(value, path + "." + field.getName(), unknown);
                }
            }
        }
    }
}
