package dev.ringmaster.clustertests.support;

import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints the time of every phase and scenario once all tests ran (registered through
 * {@code META-INF/services}), while Failsafe still shows what the test JVM prints.
 */
public final class PhaseSummary implements TestExecutionListener {

    private static boolean printed;

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        synchronized (PhaseSummary.class) {
            if (printed) {
                return;
            }
            printed = true;
        }
        System.err.println("cluster-tests: " + NodeCluster.phases());
    }
}
