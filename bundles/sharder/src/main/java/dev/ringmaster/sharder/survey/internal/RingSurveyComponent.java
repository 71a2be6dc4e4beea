package dev.ringmaster.sharder.survey.internal;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.RingSurveyException;
import dev.ringmaster.sharder.survey.RingSurveyor;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The {@link RingSurveyor} service: needs no configuration (it gets a client per call), keys objects
 * with the interpreter services deployed now, judges Leases with the default detector.
 */
@Component(service = RingSurveyor.class)
public class RingSurveyComponent implements RingSurveyor {

    private final Map<String, ResourceInterpreter> interpreters = new HashMap<>();

    @Override
    public RingSurvey survey(KubernetesClient client, RingKind kind, String name) throws RingSurveyException {
        Map<String, ResourceInterpreter> deployed;
        synchronized (interpreters) {
            deployed = Map.copyOf(interpreters);
        }
        return new LiveRingSurvey(client, deployed, new DefaultLeaseDetector(), Clock.systemUTC()).survey(kind, name);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        synchronized (interpreters) {
            interpreters.put(String.valueOf(properties.get(ResourceInterpreter.NAME)), interpreter);
        }
    }

    void unbindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        synchronized (interpreters) {
            interpreters.remove(String.valueOf(properties.get(ResourceInterpreter.NAME)), interpreter);
        }
    }
}
