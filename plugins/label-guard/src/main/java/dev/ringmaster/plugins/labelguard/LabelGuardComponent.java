package dev.ringmaster.plugins.labelguard;

import dev.ringmaster.plugins.support.ConfigLists;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The label guard as a validating {@link AdmissionHandler} served by the webhook bundle at
 * {@value #PATH_PREFIX} (any path below it, too). Off unless its configuration exists
 * ({@code configurationPolicy = REQUIRE}); a configuration change applies to the next request,
 * without re-registering the handler.
 */
@Component(configurationPid = LabelGuardComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        property = {AdmissionHandler.NAME + "=" + LabelGuardComponent.NAME,
                AdmissionHandler.PATH_PREFIX + "=" + LabelGuardComponent.PATH_PREFIX})
@Designate(ocd = LabelGuardComponent.Settings.class)
public class LabelGuardComponent implements AdmissionHandler {

    public static final String PID = "dev.ringmaster.labelguard";
    /** The handler's {@value AdmissionHandler#NAME} (a metric tag of the webhook). */
    public static final String NAME = "label-guard";
    /** Where the webhook serves the guard: the ValidatingWebhookConfiguration's {@code clientConfig} path. */
    public static final String PATH_PREFIX = "/webhooks/label-guard/";
    /** The service account of the in-cluster sharder (manifests/). */
    public static final String SHARDER_USER = "system:serviceaccount:sharding-system:sharder";

    private static final Logger LOG = LoggerFactory.getLogger(LabelGuardComponent.class);

    @ObjectClassDefinition(name = "Ringmaster label guard",
            description = "Denies UPDATEs that change a ring's shard or drain label unless they come from the sharder"
                    + " or a trusted user")
    public @interface Settings {

        @AttributeDefinition(description = "User name of the sharder, always trusted; empty: none")
        String sharderUser() default SHARDER_USER;

        @AttributeDefinition(description = "Further trusted user names, e.g. the service account of a sharded"
                + " controller: system:serviceaccount:<namespace>:<name> (in a .cfg file: comma-separated)")
        String[] trustedUsers() default {};

        @AttributeDefinition(description = "Groups whose members are trusted, e.g."
                + " system:serviceaccounts:<namespace> for every service account of a namespace (in a .cfg file:"
                + " comma-separated)")
        String[] trustedGroups() default {};

        @AttributeDefinition(description = "Let any user acknowledge a drain: remove a ring's drain label together"
                + " with its shard label, as a shard does when it lets go of an object")
        boolean allowDrainAcknowledgements() default true;
    }

    private volatile LabelGuard guard;

    @Activate
    @Modified
    void configure(Settings settings, Map<String, Object> properties) {
        LabelGuard.Policy policy = policy(settings, properties);
        guard = new LabelGuard(policy, PID);
        LOG.info("Label guard at {}: trusted users {}, trusted groups {}, drain acknowledgements by anyone {}",
                PATH_PREFIX, policy.trustedUsers(), policy.trustedGroups(),
                policy.allowDrainAcknowledgements() ? "allowed" : "denied");
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        AdmissionResponse response = guard.review(request);
        if (!response.allowed()) {
            LOG.info("Denied {} {} {}/{} by {}: {}", request.operation(), request.resource(), request.namespace(),
                    request.name(), request.username(), response.message());
        }
        return response;
    }

    /**
     * The policy of a configuration. The lists are read from the raw properties: in a {@code .cfg} file
     * they are one comma-separated string, in a {@code .config} file typed arrays ({@link ConfigLists}).
     */
    static LabelGuard.Policy policy(Settings settings, Map<String, Object> properties) {
        Set<String> users = new HashSet<>(ConfigLists.strings(properties.get("trustedUsers")));
        if (!settings.sharderUser().isBlank()) {
            users.add(settings.sharderUser().trim());
        }
        return new LabelGuard.Policy(users, ConfigLists.strings(properties.get("trustedGroups")),
                settings.allowDrainAcknowledgements());
    }
}
