package dev.ringmaster.itests.support;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.junit.runner.notification.RunNotifier;
import org.junit.runners.model.InitializationError;
import org.ops4j.pax.exam.junit.PaxExam;

/**
 * Pax Exam's JUnit 4 runner with two additions {@link dev.ringmaster.itests.SharderIT} needs in the test JVM:
 *
 * <ul>
 * <li><b>The framework's threads get a context class loader without fabric8.</b> The native container boots
 * The native container boots Felix on the calling thread, and every thread the framework, SCR and
 * Config Admin create inherits that thread's context class loader. fabric8 looks there first:
 * {@code KubernetesClientBuilder} loads {@code KubernetesClientImpl} through it, so with the test
 * class path (which holds the plain fabric8 jars for the mock server) as context class loader a client
 * built inside the framework pairs the bundle's API with the test JVM's implementation
 * ({@code NoSuchMethodException: KubernetesClientImpl.<init>(...)}). In the distribution the context
 * class loader is the launcher's class path (the JDK, Felix, the launcher), where fabric8 is not.
 * While {@link #run} runs (framework start, tests, stop) the context class loader is
 * {@link FrameworkContextClassLoader}: the test class path without fabric8 and the other libraries
 * the distribution ships as bundles, so fabric8 falls back to its bundle's class loader, as it does
 * in the distribution.</li>
 * <li><b>The {@link MockApiServer} is shut down when the class is done.</b> Pax Exam runs
 * {@code @BeforeClass}/{@code @AfterClass} inside the framework, so the test JVM has no other hook after
 * the last test of a class. The server is started by the class's {@code @Configuration} method, which
 * this runner's constructor calls; the framework stops inside {@code super.run}, so the sharder's
 * client is closed before the server goes.</li>
 * </ul>
 */
public class SharderPaxExam extends PaxExam {

    public SharderPaxExam(Class<?> testClass) throws InitializationError {
        super(testClass);
    }

    @Override
    public void run(RunNotifier notifier) {
        Thread thread = Thread.currentThread();
        ClassLoader testClassPath = thread.getContextClassLoader();
        thread.setContextClassLoader(new FrameworkContextClassLoader(testClassPath));
        try {
            super.run(notifier);
        } finally {
            thread.setContextClassLoader(testClassPath);
            MockApiServer.stop();
        }
    }

    /**
     * The test class path without the libraries the distribution ships as bundles (fabric8, Jackson,
     * SnakeYAML, Micrometer) and without the mock server's stack (Vert.x, Netty, Bouncy Castle): neither
     * their classes nor their resources, {@code META-INF/services} entries included. Everything else
     * stays visible, as Pax Exam's own URL handlers resolve {@code classpath:} URLs through the context
     * class loader while the framework starts.
     */
    static final class FrameworkContextClassLoader extends ClassLoader {

        private static final List<String> HIDDEN = List.of(
                "io.fabric8.", "com.fasterxml.jackson.", "org.yaml.snakeyaml.", "org.snakeyaml.engine.",
                "io.micrometer.", "org.HdrHistogram.", "org.LatencyUtils.", "org.jspecify.",
                "io.vertx.", "io.netty.", "org.bouncycastle.");
        private static final String SERVICES = "META-INF/services/";

        private final ClassLoader testClassPath;

        FrameworkContextClassLoader(ClassLoader testClassPath) {
            super("ringmaster-itests-framework-context", ClassLoader.getPlatformClassLoader());
            this.testClassPath = testClassPath;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (hidden(name)) {
                throw new ClassNotFoundException(name + " (test class path, hidden from the framework)");
            }
            return testClassPath.loadClass(name);
        }

        @Override
        protected URL findResource(String name) {
            return hiddenResource(name) ? null : testClassPath.getResource(name);
        }

        @Override
        protected Enumeration<URL> findResources(String name) throws IOException {
            return hiddenResource(name) ? Collections.emptyEnumeration() : testClassPath.getResources(name);
        }

        private static boolean hiddenResource(String name) {
            String path = name.startsWith("/") ? name.substring(1) : name;
            if (path.startsWith(SERVICES)) {
                return hidden(path.substring(SERVICES.length()));
            }
            return hidden(path.replace('/', '.'));
        }

        private static boolean hidden(String name) {
            return HIDDEN.stream().anyMatch(name::startsWith);
        }
    }
}
