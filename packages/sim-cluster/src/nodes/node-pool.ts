import { isAlreadyExists, isConflict, isNotFound } from "@informer-ts/apimachinery";
import { type KubeClient, type Lease, type Node, resources } from "@informer-ts/client";
import type { Clock, Ticker } from "@informer-ts/clock";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { microTime, rfc3339 } from "../internal/pod-util.js";

/** The shape of the simulated nodes (kwok's node template). */
export interface NodeTemplate {
  /** Node names are `<prefix><index>` (default `node-`), index from 0. */
  readonly namePrefix?: string;
  /** `status.capacity` and `allocatable` (default cpu 32, memory 256Gi, pods 110). */
  readonly capacity?: Readonly<Record<string, string>>;
  /** Labels besides `kubernetes.io/hostname`, `kubernetes.io/os`, `kubernetes.io/arch` and `type: kwok`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** `spec.taints`. */
  readonly taints?: readonly { key: string; value?: string; effect: string }[];
}

/** Options of a {@link NodePool}. */
export interface NodePoolOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How many nodes to create. */
  readonly count: number;
  readonly template?: NodeTemplate;
  /** `leaseDurationSeconds` of the node Leases (the kubelet's `nodeLeaseDurationSeconds`, default 40). */
  readonly leaseDurationSeconds?: number;
  /** How often a live node renews its Lease, ms (the kubelet renews at a quarter of the duration: 10 000). */
  readonly renewIntervalMs?: number;
}

const DEFAULT_CAPACITY: Readonly<Record<string, string>> = { cpu: "32", memory: "256Gi", pods: "110" };
const LEASE_NAMESPACE = "kube-node-lease";

/**
 * The nodes of the simulated cluster and the node half of the kubelet stand-in (kwok's node controller): creates
 * `count` Node objects with kwok-style status (addresses, capacity, `Ready` and the pressure conditions, node info)
 * and one Lease per node in `kube-node-lease` owned by its Node, and renews each live node's Lease every
 * `renewIntervalMs` of the clock (the kubelet's heartbeat). {@link fail} stops a node's heartbeat and its pods'
 * lifecycle, as a crashed kubelet; {@link recover} resumes both (the node lifecycle controller notices either way).
 *
 * Differences from kubelet/kwok: the node status is written once (no periodic status report every 5 minutes), so the
 * Lease is the only heartbeat; no images, volumes or daemon endpoints.
 */
export class NodePool {
  private readonly names: string[];
  private readonly down = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private readonly ips = new Map<string, string>();
  private readonly indexes = new Map<string, number>();
  private readonly listeners = new Set<(name: string, alive: boolean) => void>();
  private ticker: Ticker | undefined;
  private renewing = false;

  constructor(private readonly o: NodePoolOptions) {
    if (!Number.isInteger(o.count) || o.count < 0) {
      throw new RangeError(`node pool: count must be an integer ≥ 0, got ${o.count}`);
    }
    const prefix = o.template?.namePrefix ?? "node-";
    this.names = Array.from({ length: o.count }, (_, i) => `${prefix}${i}`);
    this.names.forEach((n, i) => {
      this.ips.set(n, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      this.indexes.set(n, i);
    });
  }

  /** The node names, in creation order. */
  nodeNames(): readonly string[] {
    return this.names;
  }

  /** Whether the pool runs `name` (a node of this pool). */
  has(name: string): boolean {
    return this.ips.has(name);
  }

  /** Whether `name` is one of this pool's nodes and its kubelet runs. */
  alive(name: string): boolean {
    return this.ips.has(name) && !this.down.has(name);
  }

  /** The node's position in {@link nodeNames}, or -1. */
  indexOf(name: string): number {
    return this.indexes.get(name) ?? -1;
  }

  /** The node's InternalIP. */
  ipOf(name: string): string | undefined {
    return this.ips.get(name);
  }

  /** Calls `fn(name, alive)` when a node fails or recovers; returns the function that removes it. */
  onChange(fn: (name: string, alive: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stops a node's kubelet: no more Lease renewals, its pods' stages stop. Throws for an unknown node. */
  fail(name: string): void {
    if (!this.ips.has(name)) throw new RangeError(`node pool: no node ${JSON.stringify(name)}`);
    if (this.down.has(name)) return;
    this.down.add(name);
    for (const l of this.listeners) l(name, false);
  }

  /** Restarts a failed node's kubelet: its Lease is renewed at once and its pods' stages resume. */
  recover(name: string): void {
    if (!this.ips.has(name)) throw new RangeError(`node pool: no node ${JSON.stringify(name)}`);
    if (!this.down.delete(name)) return;
    for (const l of this.listeners) l(name, true);
    void this.renew(name);
    void this.reportReady(name);
  }

  /** The kubelet's status report after a restart: every condition healthy again, `Ready=True` with a heartbeat now. */
  private async reportReady(name: string): Promise<void> {
    const { client, clock } = this.o;
    const now = rfc3339(clock.now());
    const healthy = this.nodeObject(name, this.indexOf(name)).status?.conditions ?? [];
    try {
      const node = await client.get(resources.nodes, name);
      const conditions = healthy.map((c) => {
        const old = node.status?.conditions?.find((x) => x.type === c.type);
        return {
          ...c,
          lastHeartbeatTime: now,
          lastTransitionTime: old?.status === c.status ? old.lastTransitionTime : now,
        };
      });
      await client.updateStatus(resources.nodes, { ...node, status: { ...node.status, conditions } } as Node);
    } catch (err) {
      safeLog(this.o.logger, "warn", "node status report failed", { node: name, err });
    }
  }

  /** The Node object a node of this pool is created as (status included; written through `/status`). */
  nodeObject(name: string, index: number): Node {
    const t = this.o.template ?? {};
    const capacity = { ...DEFAULT_CAPACITY, ...t.capacity };
    const now = rfc3339(this.o.clock.now());
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    });
    return {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          type: "kwok",
          ...t.labels,
        },
        annotations: { "node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake" },
      },
      spec: {
        podCIDR: `10.${128 + ((index >> 8) & 127)}.${index & 255}.0/24`,
        ...(t.taints !== undefined && { taints: t.taints.map((x) => ({ ...x })) }),
      },
      status: {
        capacity,
        allocatable: capacity,
        phase: "Running",
        addresses: [
          { type: "InternalIP", address: this.ips.get(name)! },
          { type: "Hostname", address: name },
        ],
        conditions: [
          condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
          condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
          condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
          condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        nodeInfo: {
          architecture: "amd64",
          operatingSystem: "linux",
          kubeletVersion: "v1.34.0-sim",
          kubeProxyVersion: "",
          containerRuntimeVersion: "sim://0.1.0",
          kernelVersion: "",
          osImage: "",
          machineID: "",
          systemUUID: "",
          bootID: "",
        },
      },
    } as Node;
  }

  /**
   * Creates the nodes and their Leases (an existing node is kept and gets its status written), then renews the
   * Leases until `signal` aborts. Errors of single writes are logged and retried on the next heartbeat.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { client } = this.o;
    await Promise.all(
      this.names.map(async (name, i) => {
        const node = this.nodeObject(name, i);
        let stored: Node;
        try {
          stored = await client.create(resources.nodes, node, {}, signal);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          stored = await client.get(resources.nodes, name, {}, signal);
        }
        await client.updateStatus(resources.nodes, { ...stored, status: node.status } as Node, {}, signal);
        await this.createLease(name, stored.metadata?.uid ?? "", signal);
      }),
    );
    const interval = this.o.renewIntervalMs ?? 10_000;
    this.ticker = this.o.clock.newTicker(interval, () => {
      if (this.renewing) return;
      this.renewing = true;
      void Promise.all(this.names.filter((n) => !this.down.has(n)).map((n) => this.renew(n))).finally(() => {
        this.renewing = false;
      });
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.ticker.stop();
  }

  private async createLease(name: string, uid: string, signal: AbortSignal): Promise<void> {
    const lease: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name,
        namespace: LEASE_NAMESPACE,
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid }],
      },
      spec: {
        holderIdentity: name,
        leaseDurationSeconds: this.o.leaseDurationSeconds ?? 40,
        renewTime: microTime(this.o.clock.now()),
      },
    };
    try {
      this.leases.set(name, await this.o.client.create(resources.leases, lease, {}, signal));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      this.leases.set(name, await this.o.client.get(resources.leases, name, { namespace: LEASE_NAMESPACE }, signal));
    }
  }

  /** One heartbeat: the Lease's `renewTime` is now (re-read once on a conflict). */
  private async renew(name: string): Promise<void> {
    const { client, clock } = this.o;
    const current = this.leases.get(name);
    if (current === undefined) return;
    try {
      const next = { ...current, spec: { ...current.spec, renewTime: microTime(clock.now()) } };
      this.leases.set(name, await client.update(resources.leases, next));
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) {
        try {
          this.leases.set(name, await client.get(resources.leases, name, { namespace: LEASE_NAMESPACE }));
        } catch {
          // Retried on the next heartbeat.
        }
        return;
      }
      safeLog(this.o.logger, "error", "node lease renewal failed", { node: name, err });
    }
  }
}
