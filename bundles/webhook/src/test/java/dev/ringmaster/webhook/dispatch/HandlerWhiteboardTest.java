package dev.ringmaster.webhook.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HandlerWhiteboardTest {

    private final AdmissionHandler sharder = (path, request) -> AdmissionResponse.allow();
    private final AdmissionHandler replacement = (path, request) -> AdmissionResponse.allow();
    private final AdmissionHandler guard = (path, request) -> AdmissionResponse.allow();
    private final HandlerWhiteboard whiteboard = new HandlerWhiteboard();

    @Test
    void handlersAddAndRemoveTheirPathsWithNames() {
        whiteboard.bind(sharder, properties("sharder", "/webhooks/sharder/clusterring/", 0, 1));
        whiteboard.bind(guard, properties("guard", new String[] {"/guard/a/", "/guard/b/"}, 0, 2));

        HandlerTable table = whiteboard.table();
        assertThat(table.routeFor("/webhooks/sharder/clusterring/example")).hasValueSatisfying(route -> {
            assertThat(route.handler()).isSameAs(sharder);
            assertThat(route.name()).isEqualTo("sharder");
            assertThat(route.prefix()).isEqualTo("/webhooks/sharder/clusterring/");
        });
        assertThat(table.handlerFor("/guard/b/x")).containsSame(guard);

        whiteboard.unbind(sharder);
        assertThat(whiteboard.table().handlerFor("/webhooks/sharder/clusterring/example")).isEmpty();
        assertThat(whiteboard.table().handlerFor("/guard/a/x")).containsSame(guard);
        assertThat(table.handlerFor("/webhooks/sharder/clusterring/example"))
                .as("a table taken before stays as it was").containsSame(sharder);
    }

    @Test
    void theHigherRankingHandlerKeepsASharedPrefixAndTheOtherTakesOverWhenItGoes() {
        whiteboard.bind(sharder, properties("sharder", "/p/", 0, 1));
        whiteboard.bind(replacement, properties("replacement", "/p/", 10, 2));
        assertThat(whiteboard.table().routeFor("/p/x")).map(HandlerTable.Route::name).hasValue("replacement");

        whiteboard.unbind(replacement);
        assertThat(whiteboard.table().routeFor("/p/x")).map(HandlerTable.Route::name).hasValue("sharder");
    }

    @Test
    void equalRankingsGoByRegistrationOrder() {
        whiteboard.bind(replacement, properties("later", "/p/", 0, 9));
        whiteboard.bind(sharder, properties("earlier", "/p/", 0, 3));
        assertThat(whiteboard.table().routeFor("/p/x")).map(HandlerTable.Route::name).hasValue("earlier");
    }

    @Test
    void updatedPropertiesMoveAHandler() {
        whiteboard.bind(sharder, properties("sharder", "/old/", 0, 1));
        whiteboard.bind(sharder, properties("sharder", "/new/", 0, 1));
        assertThat(whiteboard.table().handlerFor("/old/x")).isEmpty();
        assertThat(whiteboard.table().handlerFor("/new/x")).containsSame(sharder);
        assertThat(whiteboard.table().size()).isEqualTo(1);
    }

    @Test
    void unusablePrefixesAreIgnoredAndAMissingNameIsUnnamed() {
        whiteboard.bind(sharder, Map.of(AdmissionHandler.PATH_PREFIX, List.of("relative", "/ok/")));
        whiteboard.bind(guard, Map.of(AdmissionHandler.NAME, "guard"));
        assertThat(whiteboard.table().prefixes()).containsExactly("/ok/");
        assertThat(whiteboard.table().routeFor("/ok/x")).map(HandlerTable.Route::name).hasValue(HandlerTable.UNNAMED);
    }

    private static Map<String, Object> properties(String name, Object prefix, int ranking, long id) {
        return Map.of(AdmissionHandler.NAME, name, AdmissionHandler.PATH_PREFIX, prefix, "service.ranking", ranking,
                "service.id", id);
    }
}
