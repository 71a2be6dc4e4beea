package dev.ringmaster.webhook.tls;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The blocks of a PEM text (RFC 7468): {@code -----BEGIN LABEL-----}, base64, {@code -----END LABEL-----}. */
final class Pem {

    /** One block: its label (e.g. {@code CERTIFICATE}) and its decoded content. */
    record Block(String label, byte[] der) {
    }

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    /** RFC 1421 headers (Proc-Type, DEK-Info) of legacy encrypted keys: a line with a colon. */
    private static final Pattern HEADER_LINE = Pattern.compile("(?m)^[A-Za-z-]+:.*$");

    private Pem() {
    }

    /**
     * Every block of the text, in order; text between blocks is ignored (as openssl does).
     *
     * @throws KeyMaterialException if a block's content is not base64
     */
    static List<Block> blocks(String text, String file) throws KeyMaterialException {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            String label = matcher.group(1);
            String body = matcher.group(2);
            if (HEADER_LINE.matcher(body).find()) {
                throw new KeyMaterialException(file + ": the " + label
                        + " is encrypted (Proc-Type/DEK-Info headers); only unencrypted keys are supported");
            }
            try {
                // the strict decoder: the MIME one skips characters that are not base64
                blocks.add(new Block(label, Base64.getDecoder().decode(body.replaceAll("\\s", ""))));
            } catch (IllegalArgumentException e) {
                throw new KeyMaterialException(file + ": the " + label + " block is not valid base64: " + e.getMessage());
            }
        }
        return blocks;
    }
}
