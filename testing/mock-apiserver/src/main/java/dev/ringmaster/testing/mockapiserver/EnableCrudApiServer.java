package dev.ringmaster.testing.mockapiserver;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each test of the class against a {@link CrudApiServer} of its own: the test instance's fields of type
 * {@code KubernetesMockServer} and {@code KubernetesClient} (its class's or a superclass's) are set before each
 * test, and the client closed and the server destroyed after it. What fabric8's
 * {@code @EnableKubernetesMockClient(crud = true)} does, on the server that closes watches off its event loop:
 * fabric8's own froze on a busy machine as informers closed, and then could not be shut down.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(CrudApiServerExtension.class)
public @interface EnableCrudApiServer {
}
