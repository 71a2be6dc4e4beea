package dev.ringmaster.delivery;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Runs the delivered bundles: installs a new one, updates one whose bytes changed, uninstalls one no
 * longer delivered, and leaves every bundle it did not install alone. A jar that fails the
 * {@link JarCheck} (its digest not allowed, not signed by a trusted signer) is refused before it is
 * installed; one that is not a bundle, or does not resolve and start, is refused too: a new one is
 * uninstalled again, an updated one is put back to the bytes it had. Either way what served before
 * goes on serving. Refused bytes are not tried again until they change. Not thread-safe: one delivery
 * thread calls it.
 */
final class BundleDeployer {

    /** Where a delivered bundle stands. */
    record Outcome(Delivery.Jar jar, String symbolicName, String version, String state, String problem) {

        boolean refused() {
            return problem != null;
        }
    }

    /** The start level of plug-ins, as deploy/'s (the launcher's third folder). */
    static final int START_LEVEL = 3;
    private static final long REFRESH_TIMEOUT_SECONDS = 30;

    private final BundleContext context;
    private final JarCheck check;
    /** The bytes each delivered location runs now, to put back when an update is refused. */
    private final Map<String, Delivery.Jar> running = new HashMap<>();
    /** Refused bytes by location, with why, so that they are not tried again. */
    private final Map<String, Outcome> refused = new HashMap<>();

    /** @param check what a jar must pass before it is installed */
    BundleDeployer(BundleContext context, JarCheck check) {
        this.context = Objects.requireNonNull(context, "context");
        this.check = Objects.requireNonNull(check, "check");
    }

    /** Makes the delivered bundles exactly {@code jars}; the outcome of each, in order. */
    List<Outcome> apply(List<Delivery.Jar> jars) {
        Set<String> locations = jars.stream().map(Delivery.Jar::location).collect(Collectors.toSet());
        List<Bundle> changed = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getLocation().startsWith(Delivery.LOCATION_PREFIX) && !locations.contains(bundle.getLocation())) {
                uninstall(bundle);
                running.remove(bundle.getLocation());
                changed.add(bundle);
            }
        }
        refused.keySet().retainAll(locations);
        List<Outcome> outcomes = new ArrayList<>();
        for (Delivery.Jar jar : jars) {
            outcomes.add(deploy(jar, changed));
        }
        refresh(changed);
        return outcomes;
    }

    private Outcome deploy(Delivery.Jar jar, List<Bundle> changed) {
        Outcome earlier = refused.get(jar.location());
        if (earlier != null && earlier.jar().sha256().equals(jar.sha256())) {
            return earlier;
        }
        Delivery.Jar current = running.get(jar.location());
        Bundle installed = context.getBundle(jar.location());
        if (installed != null && current != null && current.sha256().equals(jar.sha256())) {
            return outcome(jar, installed, null);
        }
        Optional<String> refusal = check.refusal(jar);
        if (refusal.isPresent()) {
            return refuse(jar, installed, refusal.get());
        }
        try {
            Bundle bundle = installed;
            if (bundle == null) {
                bundle = context.installBundle(jar.location(), new ByteArrayInputStream(jar.bytes()));
                bundle.adapt(BundleStartLevel.class).setStartLevel(START_LEVEL);
            } else {
                changed.add(bundle);
            }
            try {
                if (installed != null) {
                    // restarts an active bundle itself, and fails if the new revision does not start
                    bundle.update(new ByteArrayInputStream(jar.bytes()));
                }
                start(bundle);
            } catch (BundleException | RuntimeException e) {
                putBack(bundle, current);
                throw e;
            }
            running.put(jar.location(), jar);
            refused.remove(jar.location());
            return outcome(jar, bundle, null);
        } catch (BundleException | RuntimeException e) {
            return refuse(jar, context.getBundle(jar.location()), rootMessage(e));
        }
    }

    /** Undoes a failed install or update: uninstalls a new bundle, restores an updated one. */
    private void putBack(Bundle bundle, Delivery.Jar previous) {
        if (previous == null) {
            uninstall(bundle);
            return;
        }
        try {
            bundle.update(new ByteArrayInputStream(previous.bytes()));
            start(bundle);
        } catch (BundleException | RuntimeException e) {
            uninstall(bundle); // what ran before does not run again either: nothing half-started stays
            running.remove(bundle.getLocation());
        }
    }

    private Outcome refuse(Delivery.Jar jar, Bundle bundle, String problem) {
        Outcome outcome = outcome(jar, bundle, problem);
        refused.put(jar.location(), outcome);
        return outcome;
    }

    private Outcome outcome(Delivery.Jar jar, Bundle bundle, String problem) {
        if (bundle == null || bundle.getState() == Bundle.UNINSTALLED) {
            return new Outcome(jar, "", "", "refused", problem);
        }
        return new Outcome(jar, bundle.getSymbolicName(), bundle.getVersion().toString(),
                problem == null ? state(bundle) : "refused", problem);
    }

    private static void start(Bundle bundle) throws BundleException {
        if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
            bundle.start();
        }
    }

    private static void uninstall(Bundle bundle) {
        try {
            bundle.uninstall();
        } catch (BundleException | IllegalStateException e) {
            // already gone
        }
    }

    /** Lets the old revisions of updated and uninstalled bundles go, and waits for it. */
    private void refresh(List<Bundle> bundles) {
        if (bundles.isEmpty()) {
            return;
        }
        CountDownLatch refreshed = new CountDownLatch(1);
        context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class).refreshBundles(bundles,
                event -> {
                    if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                        refreshed.countDown();
                    }
                });
        try {
            refreshed.await(REFRESH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String state(Bundle bundle) {
        return switch (bundle.getState()) {
            case Bundle.ACTIVE -> "active";
            case Bundle.RESOLVED -> "resolved";
            case Bundle.STARTING -> "starting";
            case Bundle.STOPPING -> "stopping";
            case Bundle.INSTALLED -> "installed";
            default -> "uninstalled";
        };
    }

    private static String rootMessage(Throwable throwable) {
        Throwable root = throwable;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root == throwable ? String.valueOf(throwable.getMessage())
                : throwable.getMessage() + ": " + root.getMessage();
        return message.replace('\n', ' ');
    }
}
