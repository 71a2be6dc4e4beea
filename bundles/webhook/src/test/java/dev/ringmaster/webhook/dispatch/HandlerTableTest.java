package dev.ringmaster.webhook.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import org.junit.jupiter.api.Test;

class HandlerTableTest {

    private final AdmissionHandler sharder = (path, request) -> AdmissionResponse.allow();
    private final AdmissionHandler special = (path, request) -> AdmissionResponse.allow();
    private final AdmissionHandler guard = (path, request) -> AdmissionResponse.allow();

    @Test
    void longestPrefixWinsAndUnknownPathsHaveNoHandler() {
        HandlerTable table = HandlerTable.empty()
                .with("/webhooks/sharder/clusterring/", sharder)
                .with("/webhooks/sharder/clusterring/special", special)
                .with("/webhooks/label-guard/", guard);
        assertThat(table.handlerFor("/webhooks/sharder/clusterring/example")).containsSame(sharder);
        assertThat(table.handlerFor("/webhooks/sharder/clusterring/special")).containsSame(special);
        assertThat(table.handlerFor("/webhooks/label-guard/example")).containsSame(guard);
        assertThat(table.handlerFor("/webhooks/other")).isEmpty();
        assertThat(table.handlerFor("/")).isEmpty();
    }

    @Test
    void aPrefixServesItsPathWithoutTheTrailingSlashAsTheApiServerSendsIt() {
        HandlerTable table = HandlerTable.empty().with("/webhooks/label-guard/", guard);
        assertThat(table.handlerFor("/webhooks/label-guard")).containsSame(guard);
        assertThat(table.handlerFor("/webhooks/label-guar")).isEmpty();
        assertThat(table.handlerFor("/webhooks/label-guardian")).isEmpty();
    }

    @Test
    void tablesAreImmutableSnapshots() {
        HandlerTable before = HandlerTable.empty().with("/a/", sharder);
        HandlerTable after = before.with("/b/", guard).without(sharder);
        assertThat(before.handlerFor("/a/x")).containsSame(sharder);
        assertThat(before.size()).isEqualTo(1);
        assertThat(after.handlerFor("/a/x")).isEmpty();
        assertThat(after.handlerFor("/b/x")).containsSame(guard);
    }

    @Test
    void firstHandlerOfAPrefixKeepsIt() {
        HandlerTable table = HandlerTable.empty().with("/a/", sharder).with("/a/", guard);
        assertThat(table.handlerFor("/a/x")).containsSame(sharder);
        assertThat(table.without(guard)).isSameAs(table);
    }

    @Test
    void prefixesMustBeAbsolutePaths() {
        assertThatThrownBy(() -> HandlerTable.empty().with("webhooks", sharder))
                .hasMessageContaining("must start with '/'");
    }
}
