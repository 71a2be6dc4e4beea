package dev.ringmaster.webhook.testing;

/** AdmissionReview request bodies as the API server sends them. */
public final class Reviews {

    private Reviews() {
    }

    /** The review of a CREATE of a ConfigMap in {@code default}. */
    public static String configMapCreate(String uid, String name) {
        return """
                {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{
                  "uid":"%s",
                  "kind":{"group":"","version":"v1","kind":"ConfigMap"},
                  "resource":{"group":"","version":"v1","resource":"configmaps"},
                  "requestKind":{"group":"","version":"v1","kind":"ConfigMap"},
                  "requestResource":{"group":"","version":"v1","resource":"configmaps"},
                  "name":"%s","namespace":"default","operation":"CREATE",
                  "userInfo":{"username":"kubernetes-admin","groups":["kubeadm:cluster-admins","system:authenticated"]},
                  "object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"%s","namespace":"default",
                    "creationTimestamp":null,"labels":{"app":"example"}},"data":{"key":"value","n":"1"}},
                  "oldObject":null,"dryRun":false,
                  "options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl-client-side-apply"}}}
                """.formatted(uid, name, name);
    }
}
