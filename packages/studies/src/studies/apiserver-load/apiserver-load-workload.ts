// Study 004's mixed client workload against one simulated apiserver in virtual time: informers that restart (and
// relist), kubectl-style labelled and paginated lists, RV-less lists, kubelet-style GETs, and pod writes.
import type { KubeObject } from "@informer-ts/apimachinery";
import { newSharedIndexInformer, type SharedIndexInformer } from "@informer-ts/cache";
import type { FakeClock, Rand, Timer } from "@informer-ts/clock";
import type { SimApiServer } from "@informer-ts/sim-apiserver";
import { awaitOnClock } from "../../runtime/on-virtual-clock.js";

/** The user agents of the workload's clients (product/version first, as real clients send them). */
export const LOAD_USER_AGENTS = {
  informer: (i: number) => `controller-${i}/v1.0.0 (linux/amd64) informer-ts`,
  kubectl: "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9",
  lister: "report-exporter/v0.3.0 (linux/amd64) kubernetes/$Format",
  kubelet: "kubelet/v1.28.3 (linux/amd64) kubernetes/a8a1abc",
  /** The pod writer: a controller of its own (client-go's default user agent of a binary built outside Kubernetes). */
  writer: "annotation-controller/v0.9.1 (linux/amd64) kubernetes/$Format",
} as const;

/** What the workload sends; every interval in virtual seconds, 0 turns that client off. */
export interface LoadWorkloadOptions {
  /** Pods in the cluster, spread over `namespaces`, labelled `app=app-<n>` among `apps`. */
  readonly pods: number;
  readonly namespaces: number;
  readonly apps: number;
  /** Informers on pods (one per controller), each restarted every `restartSeconds` (staggered): a full relist. */
  readonly informers: number;
  readonly restartSeconds: number;
  /** The informers start with a streaming watch-list (client-go ≥ 1.35) instead of list-then-watch. */
  readonly watchList: boolean;
  /** `kubectl get pods -A -l app=…` (limit 500, RV unset, every page) every `kubectlSeconds`. */
  readonly kubectlSeconds: number;
  /** A full RV-less pod list (`List(ListOptions{})`) every `plainListSeconds`. */
  readonly plainListSeconds: number;
  /** Kubelets (one per node): every `kubeletSeconds` each GETs its Node (RV "0") and `configMapsPerNode` ConfigMaps. */
  readonly nodes: number;
  readonly kubeletSeconds: number;
  readonly configMapsPerNode: number;
  /** Pod writes (annotation patches) per second. */
  readonly writesPerSecond: number;
}

/** Counts of what the workload did (requests are counted by the simulator's accounting). */
export interface LoadWorkloadCounts {
  informerStarts: number;
  kubectlRuns: number;
  kubectlPages: number;
  plainLists: number;
  kubeletGets: number;
  writes: number;
  /** Requests that failed (message, count), e.g. a 429 while a cache initializes. */
  readonly errors: Map<string, number>;
}

const pod = (name: string, ns: string, app: string, node: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns, labels: { app } },
  spec: { nodeName: node, containers: [{ name: "app", image: "registry.k8s.io/pause:3.9" }] },
});

/**
 * Creates the cluster's objects — namespaces, then Nodes and their ConfigMaps, then pods — in concurrent batches,
 * advancing `clock` meanwhile (with a cost model every create takes virtual time). Not counted by the study: it
 * resets the accounting afterwards.
 */
export async function seedLoadCluster(sim: SimApiServer, clock: FakeClock, o: LoadWorkloadOptions): Promise<void> {
  const ctx = { userAgent: "seed" };
  const batch = async (label: string, creates: (() => Promise<unknown>)[]) => {
    for (let i = 0; i < creates.length; i += 250)
      await awaitOnClock(clock, Promise.all(creates.slice(i, i + 250).map((c) => c())), `seeding ${label}`);
  };
  await batch(
    "namespaces",
    Array.from(
      { length: o.namespaces },
      (_, n) => () =>
        sim.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } }, ctx),
    ),
  );
  const nodeObjects: (() => Promise<unknown>)[] = [];
  for (let n = 0; n < o.nodes; n++) {
    nodeObjects.push(() =>
      sim.create("nodes", "", { apiVersion: "v1", kind: "Node", metadata: { name: `node-${n}` } }, ctx),
    );
    for (let c = 0; c < o.configMapsPerNode; c++)
      nodeObjects.push(() =>
        sim.create(
          "configmaps",
          `ns-${n % o.namespaces}`,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${n}-${c}` }, data: { k: "v" } },
          ctx,
        ),
      );
  }
  await batch("nodes and ConfigMaps", nodeObjects);
  await batch(
    "pods",
    Array.from({ length: o.pods }, (_, i) => () => {
      const ns = `ns-${i % o.namespaces}`;
      return sim.create("pods", ns, pod(`pod-${i}`, ns, `app-${i % o.apps}`, `node-${i % Math.max(1, o.nodes)}`), ctx);
    }),
  );
}

/**
 * Starts the workload's clients on the simulator's clock; they run until {@link RunningWorkload.stop}. Every request
 * is fire-and-forget on the virtual clock; a failure is counted in `errors`, never thrown.
 */
export class RunningWorkload {
  readonly counts: LoadWorkloadCounts = {
    informerStarts: 0,
    kubectlRuns: 0,
    kubectlPages: 0,
    plainLists: 0,
    kubeletGets: 0,
    writes: 0,
    errors: new Map(),
  };
  private readonly timers: Timer[] = [];
  private readonly informers: { ac: AbortController; run: Promise<void> }[] = [];
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly fetched = new Set<string>();
  private stopped = false;
  private writeSeq = 0;

  constructor(
    private readonly sim: SimApiServer,
    private readonly clock: FakeClock,
    private readonly rand: Rand,
    private readonly o: LoadWorkloadOptions,
    private readonly onEvent: () => void = () => {},
  ) {
    for (let i = 0; i < o.informers; i++) {
      this.startInformer(i);
      if (o.restartSeconds > 0) {
        // Staggered: informer i first restarts after (i + 1) / n of the period, then every period.
        const first = ((i + 1) * o.restartSeconds * 1000) / o.informers;
        this.every(first, o.restartSeconds * 1000, () => this.restartInformer(i));
      }
    }
    if (o.kubectlSeconds > 0) this.every(o.kubectlSeconds * 1000, o.kubectlSeconds * 1000, () => this.kubectl());
    if (o.plainListSeconds > 0)
      this.every(o.plainListSeconds * 1000, o.plainListSeconds * 1000, () => this.track(this.plainList()));
    if (o.kubeletSeconds > 0 && o.nodes > 0)
      for (let n = 0; n < o.nodes; n++) {
        // Each kubelet on its own phase within the period.
        const phase = Math.floor((n * o.kubeletSeconds * 1000) / o.nodes) + 1;
        this.every(phase, o.kubeletSeconds * 1000, () => this.kubelet(n));
      }
    if (o.writesPerSecond > 0) {
      const period = 1000 / o.writesPerSecond;
      this.every(period, period, () => this.write());
    }
  }

  /** Runs `fn` after `firstMs`, then every `periodMs`; one pending timer per schedule (slot `i` of `timers`). */
  private every(firstMs: number, periodMs: number, fn: () => void): void {
    const slot = this.timers.length;
    const tick = () => {
      if (this.stopped) return;
      fn();
      this.timers[slot] = this.clock.afterFunc(periodMs, tick);
    };
    this.timers.push(this.clock.afterFunc(firstMs, tick));
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch((err: unknown) => {
      const msg = err instanceof Error ? err.message : String(err);
      this.counts.errors.set(msg, (this.counts.errors.get(msg) ?? 0) + 1);
    });
    this.inflight.add(t);
    void t.finally(() => this.inflight.delete(t));
  }

  private startInformer(i: number): void {
    const lw = this.sim.listerWatcher("pods", { userAgent: LOAD_USER_AGENTS.informer(i) });
    const inf: SharedIndexInformer<KubeObject> = newSharedIndexInformer<KubeObject>(lw, undefined, {
      clock: this.clock,
      rand: this.rand,
      name: `controller-${i}`,
      reflector: { useWatchList: this.o.watchList },
    });
    inf.addEventHandler({ onAdd: this.onEvent, onUpdate: this.onEvent, onDelete: this.onEvent });
    const ac = new AbortController();
    this.informers[i] = { ac, run: inf.run(ac.signal) };
    this.counts.informerStarts++;
  }

  private restartInformer(i: number): void {
    const old = this.informers[i];
    old?.ac.abort();
    this.startInformer(i);
  }

  private kubectl(): void {
    const app = `app-${Math.floor(this.rand.float() * this.o.apps)}`;
    this.counts.kubectlRuns++;
    this.track(
      (async () => {
        let token = "";
        do {
          const page = await this.sim.list(
            "pods",
            "",
            { labelSelector: `app=${app}`, limit: 500, ...(token !== "" && { continue: token }) },
            { userAgent: LOAD_USER_AGENTS.kubectl },
          );
          this.counts.kubectlPages++;
          token = page.metadata?.continue ?? "";
        } while (token !== "" && !this.stopped);
      })(),
    );
  }

  private async plainList(): Promise<void> {
    this.counts.plainLists++;
    await this.sim.list("pods", "", {}, { userAgent: LOAD_USER_AGENTS.lister });
  }

  private kubelet(n: number): void {
    const ctx = { userAgent: LOAD_USER_AGENTS.kubelet };
    // Node status: the kubelet's first try GETs its Node from the cache (RV "0").
    this.counts.kubeletGets++;
    this.track(this.sim.get("nodes", "", `node-${n}`, { resourceVersion: "0" }, ctx));
    // ConfigMaps (the cache-based manager): the first GET without RV, refreshes after the TTL with RV "0".
    for (let c = 0; c < this.o.configMapsPerNode; c++) {
      const name = `cm-${n}-${c}`;
      const first = !this.fetched.has(name);
      this.fetched.add(name);
      this.counts.kubeletGets++;
      this.track(
        this.sim.get("configmaps", `ns-${n % this.o.namespaces}`, name, { resourceVersion: first ? "" : "0" }, ctx),
      );
    }
  }

  private write(): void {
    if (this.o.pods === 0) return;
    const i = Math.floor(this.rand.float() * this.o.pods);
    const seq = ++this.writeSeq;
    this.counts.writes++;
    this.track(
      this.sim.patch(
        "pods",
        `ns-${i % this.o.namespaces}`,
        `pod-${i}`,
        "application/merge-patch+json",
        JSON.stringify({ metadata: { annotations: { "load.informer-ts.dev/seq": String(seq) } } }),
        { userAgent: LOAD_USER_AGENTS.writer },
      ),
    );
  }

  /**
   * Stops every client: no new request; informers stopped; resolves when they and the requests in flight have
   * settled, advancing the clock meanwhile (a request may be sleeping its virtual latency).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.stop();
    for (const inf of this.informers) inf.ac.abort();
    const all = Promise.all([...this.informers.map((i) => i.run), ...this.inflight]);
    await awaitOnClock(this.clock, all, "stopping the workload");
  }
}
