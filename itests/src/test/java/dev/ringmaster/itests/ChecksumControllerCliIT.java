package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Kubeconfigs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

/** The shipped {@code bin/checksum-controller} as a process: its answers to bad input. */
public class ChecksumControllerCliIT {

    @Test
    public void aMissingFlagIsAUsageError() {
        // --ring is the one flag without a default (--kubeconfig, --shard-name and --namespace have in-pod ones)
        Cli.Result result = Cli.runScript(Distribution.home(), "checksum-controller",
                List.of("--shard-name", "shard-0", "--namespace", "default"));
        assertEquals(result.toString(), 2, result.exit());
        assertTrue(result.toString(), result.err().contains("missing required flag --ring"));
        assertTrue(result.toString(), result.err().contains("Usage: checksum-controller --ring NAME"));
    }

    @Test
    public void flagsTakeTheirValueAfterAnEqualsSignAndHelpPrintsTheUsage() {
        Cli.Result unknown = Cli.runScript(Distribution.home(), "checksum-controller",
                List.of("--ring=checksums", "--shard-name=shard-0", "--namespace=default", "--frobnicate"));
        assertEquals(unknown.toString(), 2, unknown.exit());
        assertTrue(unknown.toString(), unknown.err().startsWith("checksum-controller: unknown flag --frobnicate\n"));
        assertTrue(unknown.toString(), unknown.err().contains("Usage: checksum-controller --ring NAME"));
        Cli.Result help = Cli.runScript(Distribution.home(), "josdk-checksum-operator", List.of("--ring=checksums", "--help"));
        assertEquals(help.toString(), 0, help.exit());
        assertTrue(help.toString(), help.out().startsWith("Usage: josdk-checksum-operator --ring NAME"));
    }

    @Test
    public void anUnreachableApiServerIsOneLineAndExitCodeOne() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Path kubeconfig = Kubeconfigs.unchecked(Distribution.work("cli").resolve("unreachable.yaml"),
                "https://127.0.0.1:" + closedPort);

        Cli.Result result = Cli.runScript(Distribution.home(), "checksum-controller", List.of("--kubeconfig",
                kubeconfig.toString(), "--ring", "example", "--shard-name", "shard-0", "--namespace", "default"));

        assertEquals(result.toString(), 1, result.exit());
        List<String> errors = result.err().lines().filter(line -> line.startsWith("checksum-controller:")).toList();
        assertEquals(result.toString(), 1, errors.size());
        assertTrue(result.toString(), errors.get(0).contains("cannot reach the API server at https://127.0.0.1:" + closedPort));
        assertTrue("no stack trace:\n" + result, !result.err().contains("\tat "));
    }
}
