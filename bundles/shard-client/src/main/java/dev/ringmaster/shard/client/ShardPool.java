package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stable shard identities for the pods of a Deployment, whose names change with every pod: a pool of
 * names {@code <pool>-0} … {@code <pool>-<replicas-1>}, where {@code <pool>} is the Deployment's name and
 * {@code replicas} its {@code spec.replicas}. A starting pod {@linkplain #claim(Duration) claims} the
 * lowest free name by writing that shard's Lease, and runs as that shard: its {@link ShardLease}, started
 * next with the same instance, finds the Lease its own and renews it.
 *
 * <pre>{@code
 * String shard = ShardPool.of(client, "default", "checksum-controller")
 *         .ring(RingKind.CLUSTER_RING, "checksums")
 *         .instance(instance)                      // default: Sharding.defaultInstance()
 *         .claim(Duration.ofMinutes(5));           // blocks until a name is free
 * Sharding sharding = Sharding.forRing("checksums").shard(shard).instance(instance)
 *         .departure(ShardDeparture.pool(client, "default", "checksum-controller"))...build();
 * }</pre>
 * ({@link Sharding.Builder#identityPool(String, Duration)} does both.)
 *
 * <p>A name is free as for {@link ShardLease}: no holder, expired, or held by its own name and either
 * this instance or marked {@code ringmaster.dev/restarting} (the pod it belonged to stopped to be
 * replaced). A rolling update thus hands each name from an old pod to a new one, and the sharder moves
 * nothing. The claim is an optimistic create or update, so two pods claiming at once get different
 * names: the loser gets a conflict and tries the next name. When every name is held, it waits a retry
 * period and looks again (the Deployment's replicas are read again every round).
 *
 * <p>Each claimer needs its own instance: two claimers of one instance would both see a name as theirs.
 * Needs {@code get deployments} (apps) and {@code get, create, update leases} in the namespace.
 */
public final class ShardPool {

    private static final Logger LOG = LoggerFactory.getLogger(ShardPool.class);
    private static final int MAX_NAME_LENGTH = 63;

    private final KubernetesClient client;
    private final String namespace;
    private final String pool;
    private RingKind ringKind = RingKind.CLUSTER_RING;
    private String ring;
    private String instance;
    private Integer weight;
    private Duration leaseDuration = Duration.ofSeconds(15);
    private Duration retryPeriod = Duration.ofSeconds(2);
    private Clock clock = Clock.systemUTC();

    private ShardPool(KubernetesClient client, String namespace, String pool) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.pool = Objects.requireNonNull(pool, "poolName");
        if (pool.isEmpty() || !Sharding.validName(pool)) {
            throw new IllegalArgumentException("pool name '" + pool + "' is invalid: use lower-case letters, digits,"
                    + " '-' and '.', starting and ending with a letter or digit");
        }
        if (pool.length() + 3 > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("pool name must be at most " + (MAX_NAME_LENGTH - 3)
                    + " characters (its shard names add '-<index>'), got " + pool.length() + ": " + pool);
        }
    }

    /**
     * The pool of the Deployment {@code poolName} in {@code namespace}, whose Leases (in the same
     * namespace) are {@code <poolName>-<i>}.
     *
     * @throws IllegalArgumentException if the pool name is invalid or too long for its shard names
     */
    public static ShardPool of(KubernetesClient client, String namespace, String poolName) {
        return new ShardPool(client, namespace, poolName);
    }

    /** The ring the claimed shard joins: its Lease label. Required. */
    public ShardPool ring(RingKind kind, String ring) {
        this.ringKind = Objects.requireNonNull(kind, "kind");
        this.ring = Objects.requireNonNull(ring, "ring");
        return this;
    }

    /** The claiming process's instance; default {@link Sharding#defaultInstance()}. Give the ShardLease the same. */
    public ShardPool instance(String instance) {
        if (instance == null || instance.isBlank()) {
            throw new IllegalArgumentException("instance must not be empty");
        }
        this.instance = instance;
        return this;
    }

    /** The {@code ringmaster.dev/weight} annotation to write with the claim; default: left as it is. */
    public ShardPool weight(Integer weight) {
        this.weight = weight;
        return this;
    }

    /** {@code leaseDurationSeconds} written with the claim, as the shard's; default 15 s. */
    public ShardPool leaseDuration(Duration leaseDuration) {
        this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
        return this;
    }

    /** How long to wait between rounds when every name is held; default 2 s. */
    public ShardPool retryPeriod(Duration retryPeriod) {
        this.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
        return this;
    }

    /** The clock of the renew times written and compared; default the UTC system clock. */
    public ShardPool clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** The pool's name, the Deployment's. */
    public String name() {
        return pool;
    }

    /**
     * Claims the lowest free name of the pool, waiting while none is free.
     *
     * @param timeout how long to wait at most
     * @return the claimed name, {@code <pool>-<i>}: the shard's name
     * @throws TimeoutException      if no name was free within {@code timeout}
     * @throws InterruptedException  if interrupted while waiting
     * @throws IllegalStateException if the Deployment cannot be read (absent, forbidden, unreachable)
     *                               or no ring was given
     */
    public String claim(Duration timeout) throws TimeoutException, InterruptedException {
        if (ring == null) {
            throw new IllegalStateException("ring(...) must be set: the claim writes the ring's Lease label");
        }
        String me = instance != null ? instance : Sharding.defaultInstance();
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean loggedWait = false;
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("claiming a name of pool " + pool);
            }
            int replicas = replicas();
            String claimed = claimRound(me, replicas);
            if (claimed != null) {
                LOG.info("Claimed shard name {} of pool {} (Deployment {}/{} has {} replicas) as instance {}",
                        claimed, pool, namespace, pool, replicas, me);
                return claimed;
            }
            if (!loggedWait) {
                LOG.info("All {} slots of pool {} are held; waiting", replicas, pool);
                loggedWait = true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("all " + replicas + " slots of pool " + pool + " in " + namespace
                        + " stayed held for " + timeout);
            }
            Thread.sleep(Math.max(1, Math.min(retryPeriod.toMillis(), left / 1_000_000)));
        }
    }

    /** One pass over the names: the name claimed, or null. */
    String claimRound(String me, int replicas) {
        for (int i = 0; i < replicas; i++) {
            String name = pool + "-" + i;
            if (name.length() > MAX_NAME_LENGTH) {
                break;
            }
            try {
                if (tryClaim(name, me)) {
                    return name;
                }
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
                LOG.debug("Pool {}: {} was claimed by someone else at the same time", pool, name);
            }
        }
        return null;
    }

    private boolean tryClaim(String name, String me) {
        Instant now = clock.instant();
        Lease existing = client.leases().inNamespace(namespace).withName(name).get();
        if (existing == null) {
            Lease fresh = new LeaseBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build();
            client.leases().inNamespace(namespace)
                    .resource(LeaseRules.held(fresh, name, me, ringKind, ring, weight, leaseDuration, now)).create();
            return true;
        }
        if (LeaseRules.taken(existing, name, me, now) != null) {
            return false;
        }
        client.leases().inNamespace(namespace)
                .resource(LeaseRules.held(existing, name, me, ringKind, ring, weight, leaseDuration, now)).update();
        return true;
    }

    private int replicas() {
        Deployment deployment;
        try {
            deployment = client.apps().deployments().inNamespace(namespace).withName(pool).get();
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("cannot read Deployment " + namespace + "/" + pool + " of pool " + pool
                    + (e.getCode() > 0 ? ": HTTP " + e.getCode() : ": " + e.getMessage())
                    + " (the shard needs get deployments in " + namespace + ")", e);
        }
        if (deployment == null) {
            throw new IllegalStateException("Deployment " + namespace + "/" + pool + " of pool " + pool
                    + " does not exist: the pool's size is its replicas");
        }
        return deployment.getSpec() == null || deployment.getSpec().getReplicas() == null
                ? 1 : deployment.getSpec().getReplicas();
    }

    /** The index of {@code leaseName} in {@code pool} ({@code <pool>-<i>}), or -1 if not one of its names. */
    static int slotIndex(String pool, String leaseName) {
        if (leaseName == null || !leaseName.startsWith(pool + "-")) {
            return -1;
        }
        String index = leaseName.substring(pool.length() + 1);
        if (!index.matches("0|[1-9][0-9]{0,8}")) {
            return -1;
        }
        return Integer.parseInt(index);
    }
}
