package dev.ringmaster.launcher.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.launcher.run.RunFlag.Target;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code etc/} files are written for operators to read, so they are not generated from
 * the table: this holds them to it instead.
 */
class RunFlagTest {

    private static final Path ETC = Path.of("../../distribution/src/main/dist/etc");

    @Test
    void everyKeyAFlagSetsTakesTheFlagsPropertyInTheShippedFiles() throws IOException {
        Set<String> expected = new HashSet<>();
        for (RunFlag flag : RunFlag.values()) {
            for (Target target : flag.targets()) {
                expected.add(target.pid() + " " + target.key() + " = ${" + flag.property() + "}");
            }
        }
        Set<String> placeholders = new HashSet<>();
        try (Stream<Path> files = Files.list(ETC)) {
            for (Path file : files.filter(file -> file.toString().endsWith(".cfg")).toList()) {
                String pid = file.getFileName().toString().replaceFirst("\\.cfg$", "");
                Properties properties = new Properties();
                try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    properties.load(reader);
                }
                properties.stringPropertyNames().stream()
                        .filter(key -> properties.getProperty(key).contains("${" + RunFlag.PREFIX))
                        .forEach(key -> placeholders.add(pid + " " + key + " = " + properties.getProperty(key)));
            }
        }
        assertThat(placeholders).isEqualTo(expected).hasSize(15);
    }

    @Test
    void namesAreTheFrameworkPropertiesTheFilesReferTo() {
        assertThat(RunFlag.named("tlsDir")).contains(RunFlag.TLS_DIR);
        assertThat(RunFlag.TLS_DIR.property()).isEqualTo("ringmaster.run.tlsDir");
        assertThat(RunFlag.named("no-such-flag")).isEmpty();
        assertThat(RunFlag.SHELL.targets()).as("only the launcher reads --shell").isEmpty();
    }
}
