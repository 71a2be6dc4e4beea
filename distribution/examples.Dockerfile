# The example shards' image (ringmaster-examples): bin/checksum-controller (examples/checksum-controller,
# on shard-client) and bin/josdk-checksum-operator (examples/josdk-checksum-operator, on shard-josdk), each
# on its plain class path in lib/, as the distribution that `mvn -B package` builds ships them. Run Maven
# first; the build context is distribution/, as for the sharder's Dockerfile:
#
#   mvn -B package -DskipTests
#   docker build -t ringmaster-examples:0.1.0-SNAPSHOT -f distribution/examples.Dockerfile distribution
#
# or, with Debian's Java runtime where no registry is reachable (../shared/k8s/base-image):
#
#   buildah bud --pull=never --build-arg BASE=localhost/java17-jre:bookworm \
#     -t ringmaster-examples:0.1.0-SNAPSHOT -f distribution/examples.Dockerfile distribution
#
# No entrypoint: the pod's command picks the example (examples/manifests/, docs/example-shards.md):
#   command: [/opt/ringmaster/bin/checksum-controller]       args: [--ring, checksums, ...]
#   command: [/opt/ringmaster/bin/josdk-checksum-operator]   args: [--ring, josdk-checksums, ...]
# In a pod the ring is the only flag needed: the client uses the pod's ServiceAccount, the shard name
# is $POD_NAME (else $HOSTNAME), the Lease namespace $POD_NAMESPACE (else the ServiceAccount's).
ARG BASE=eclipse-temurin:17-jre-noble
FROM ${BASE}

# The sharder image's user: a fixed numeric user and group, so runAsNonRoot can check it.
RUN groupadd --system --gid 65532 ringmaster \
 && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin ringmaster

# Owned by root and read-only for the process: the root filesystem may be mounted read-only. The
# JVM writes only to /tmp (its perf data); mount an emptyDir there.
# The scripts are POSIX sh (bin/josdk-checksum-operator runs bin/checksum-controller).
COPY target/ringmaster/bin/checksum-controller target/ringmaster/bin/josdk-checksum-operator /opt/ringmaster/bin/
COPY target/ringmaster/lib/checksum-controller/ /opt/ringmaster/lib/checksum-controller/
COPY target/ringmaster/lib/josdk-checksum-operator/ /opt/ringmaster/lib/josdk-checksum-operator/

WORKDIR /opt/ringmaster
# Class data sharing (AppCDS): each example's classes, archived here by a run of it that stops at its
# first call to the API server (nothing answers at 127.0.0.1:1, so it exits 1 and the archive must be
# there), lib/<example>.jsa, which the scripts hand to the JVM. A shard so reaches its Lease in two thirds
# of the time and CPU (docs/performance.md, "Start-up and class data sharing"). It fits this image's JVM only.
RUN printf '%s\n' 'apiVersion: v1' 'kind: Config' 'current-context: none' \
      'clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]' \
      'contexts: [{name: none, context: {cluster: none, user: none}}]' 'users: [{name: none, user: {token: none}}]' \
      > /tmp/unreachable.kubeconfig \
 && for example in checksum-controller josdk-checksum-operator; do \
      CHECKSUM_CONTROLLER_JAVA_OPTS="-XX:ArchiveClassesAtExit=lib/$example.jsa" \
      JOSDK_CHECKSUM_OPERATOR_JAVA_OPTS="-XX:ArchiveClassesAtExit=lib/$example.jsa" \
      bin/$example --ring training --shard-name training --namespace training \
        --kubeconfig /tmp/unreachable.kubeconfig >/dev/null 2>&1; \
      test -s lib/$example.jsa || exit 1; \
    done \
 && rm -rf /tmp/*
# the scripts pass these to the JVM; a pod's env replaces them (docs/example-shards.md, the image table)
ENV CHECKSUM_CONTROLLER_JAVA_OPTS="-XX:MaxRAMPercentage=20 -XX:MinRAMPercentage=20 -XX:+UseSerialGC -Xss512k -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=16m -XX:+ExitOnOutOfMemoryError" \
    JOSDK_CHECKSUM_OPERATOR_JAVA_OPTS="-XX:MaxRAMPercentage=20 -XX:MinRAMPercentage=20 -XX:+UseSerialGC -Xss512k -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=16m -XX:+ExitOnOutOfMemoryError"
USER 65532:65532
# the scripts exec the JVM, which so receives SIGTERM itself and releases the shard's Lease.
# The base image's entrypoint (if any) is dropped; without a command the image prints the usage.
ENTRYPOINT []
CMD ["/opt/ringmaster/bin/checksum-controller", "--help"]
