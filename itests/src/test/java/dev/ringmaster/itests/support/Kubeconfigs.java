package dev.ringmaster.itests.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Kubeconfig files the tests write for a command to read. */
public final class Kubeconfigs {

    private Kubeconfigs() {
    }

    /**
     * Writes {@code file}: a kubeconfig for {@code server} with a token nobody checks and the server's
     * certificate not verified, for the mock server or for an address where nothing listens.
     */
    public static Path unchecked(Path file, String server) throws IOException {
        return Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster: {server: "%s", insecure-skip-tls-verify: true}
                contexts:
                - name: test
                  context: {cluster: test, user: tester}
                current-context: test
                users:
                - name: tester
                  user: {token: not-checked}
                """.formatted(server));
    }
}
