package dev.ringmaster.cli.simulate;

/** The little JSON the command prints, written by hand: the bundle needs no JSON library. */
final class JsonText {

    private JsonText() {
    }

    /** A JSON string literal. */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
