package dev.ringmaster.testing.mockapiserver;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** {@link EnableCrudApiServer}'s extension; the store closes the client and the server after the test. */
final class CrudApiServerExtension implements BeforeEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CrudApiServerExtension.class);

    @Override
    public void beforeEach(ExtensionContext context) throws IllegalAccessException {
        KubernetesMockServer server = CrudApiServer.start();
        KubernetesClient client = server.createClient();
        context.getStore(NAMESPACE).put(KubernetesMockServer.class, (AutoCloseable) () -> {
            client.close();
            server.destroy();
        });
        Object test = context.getRequiredTestInstance();
        for (Class<?> type = test.getClass(); type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                if (field.getType() == KubernetesMockServer.class) {
                    field.setAccessible(true);
                    field.set(test, server);
                } else if (field.getType() == KubernetesClient.class) {
                    field.setAccessible(true);
                    field.set(test, client);
                }
            }
        }
    }
}
