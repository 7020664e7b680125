import type { KubeObject } from "@informer-ts/apimachinery";
import {
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newSharedIndexInformer,
  type ReflectorPhase,
  type SharedIndexInformer,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { realClock, seededRand } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";

/**
 * Options of {@link runDemo}. The demo runs on the real clock over real sockets by design (a virtual clock cannot
 * drive real I/O), so `seed` fixes the sequence of writes the churn makes, not the timing of the run: how the writes
 * interleave with the informer's requests, and therefore the exact counts printed, vary from run to run.
 */
export interface DemoOptions {
  /** ConfigMaps on the server before the informer starts. */
  readonly objects: number;
  /** Churn phase length in seconds. */
  readonly seconds: number;
  /** Changes per second during churn. */
  readonly rate: number;
  /** Seed of the writer's random stream: which objects are updated, created or deleted, in which order. */
  readonly seed: number;
  /** How long the watch cache stays unready after the re-initialization fault (default 1 s). */
  readonly downtimeMs?: number;
  /**
   * How long to wait for the informer's initial sync before failing (default 60 s). The failure names what did not
   * happen and the reflector's last error; everything the demo started is stopped either way.
   */
  readonly syncTimeoutMs?: number;
  /** How long to wait after the churn for the store to equal the server's storage (default 30 s). */
  readonly convergeTimeoutMs?: number;
  /** Where the report lines go (default: stdout). */
  readonly out?: (line: string) => void;
}

/** What the demo measured; `converged` is the verdict. */
export interface DemoResult {
  /** The informer's store equals the server's storage, key by key and resourceVersion by resourceVersion. */
  readonly converged: boolean;
  /** When not converged: the first difference found (in the server's key order), else undefined. */
  readonly mismatch?: string;
  readonly url: string;
  readonly syncMs: number;
  readonly changes: number;
  readonly storeSize: number;
  readonly serverSize: number;
  readonly handlerCalls: { adds: number; updates: number; deletes: number };
  readonly lists: number;
  readonly watches: number;
  readonly relists: Record<string, number>;
  readonly phases: string[];
  /** Requests the server saw from the demo's client: `verb code served-from` → count. */
  readonly serverRequests: Record<string, number>;
}

/** The user agent of the demo's informer; the server's request accounting is filtered on it. */
export const DEMO_USER_AGENT = "informer-demo/0.1.0";

function configMap(i: number, generation: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(5, "0")}`, namespace: `ns-${i % 10}`, labels: { app: `app-${i % 7}` } },
    data: { generation: String(generation), payload: "x".repeat(200) },
  };
}

function bar(n: number, max: number, width = 40): string {
  const len = max === 0 ? 0 : Math.round((n / max) * width);
  return "█".repeat(len) + " ".repeat(width - len);
}

const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/**
 * Compares the informer's store with the server's storage (`[namespace/name, object]` in key order): the first
 * difference as text, or undefined when they hold the same keys at the same resourceVersions.
 */
function firstMismatch(
  server: ReadonlyArray<readonly [string, KubeObject]>,
  informer: SharedIndexInformer<KubeObject>,
): string | undefined {
  const store = informer.getIndexer();
  for (const [key, obj] of server) {
    const want = obj.metadata?.resourceVersion;
    const got = store.getByKey(key);
    if (got === undefined) return `${key} (resourceVersion ${want}) is on the server but not in the store`;
    const have = got.metadata?.resourceVersion;
    if (have !== want) return `${key}: store has resourceVersion ${have}, the server ${want}`;
  }
  if (store.listKeys().length !== server.length) {
    const onServer = new Set(server.map(([key]) => key));
    const extra = store
      .listKeys()
      .sort()
      .find((key) => !onServer.has(key));
    return `${extra ?? "?"} is in the store but not on the server (store ${store.listKeys().length}, server ${server.length})`;
  }
  return undefined;
}

/**
 * The informer demo against the embedded simulated kube-apiserver. The engine (`SimApiServer`: MVCC storage with one
 * global resourceVersion, a watch cache per resource) is served over real HTTP on 127.0.0.1 by `SimHttpServer`; a
 * `SharedIndexInformer` (reflector with watch-list → RealFIFO in atomic mode → processDeltas → indexer → handler)
 * syncs through `@informer-ts/client` exactly as it would from a cluster. While writes churn the store, two faults
 * are injected on the server: every watch connection is dropped (the reflector re-watches from its last RV without
 * relisting), then the ConfigMap watch cache is re-initialized (watchers closed, history emptied, 429 while it is
 * unready — the reflector backs off, gets 410 for its old RV and relists). At the end the informer's store must
 * equal the server's storage, key by key and resourceVersion by resourceVersion: that is the verdict.
 *
 * Runs on the real clock. Rejects when the initial sync does not happen within `syncTimeoutMs` or anything else
 * fails; either way the informer is stopped and the client, the HTTP server and the engine are closed before it
 * settles, so a caller (the CLI) can exit.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = realClock;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const syncTimeoutMs = options.syncTimeoutMs ?? 60_000;
  const convergeTimeoutMs = options.convergeTimeoutMs ?? 30_000;
  const checks: Array<[string, number | undefined]> = [
    ["objects", options.objects],
    ["seconds", options.seconds],
    ["rate", options.rate],
    ["seed", options.seed],
    ["downtimeMs", options.downtimeMs],
    ["syncTimeoutMs", syncTimeoutMs],
    ["convergeTimeoutMs", convergeTimeoutMs],
  ];
  for (const [name, value] of checks) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`runDemo: ${name} must be a finite number ≥ 0, got ${value}`);
    }
  }
  // Separate streams: the writer's is the only one that decides what the demo does, so a seed gives the same
  // sequence of writes however the engine's and the informer's draws (jitter, timeouts) interleave with real I/O.
  const rand = seededRand(options.seed);
  const engine = new SimApiServer({
    clock,
    rand: seededRand(options.seed + 1),
    logger: { log: (_level, message) => out(`  apiserver: ${message}`) },
  });
  const configmaps = engine.resource("configmaps");
  // The writer's working set, to pick objects to update or delete. The verdict reads the server's storage instead.
  const live = new Map<string, KubeObject>();
  let http: SimHttpServer | undefined;
  let client: KubeClient | undefined;
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  let sub: { unsubscribe(): void } | undefined;
  try {
    // The ConfigMaps live in ten namespaces, which must exist first (the apiserver's namespace lifecycle).
    for (let n = 0; n < Math.min(10, options.objects); n++) {
      await engine.create("namespaces", "", { metadata: { name: `ns-${n}` } });
    }
    for (let i = 0; i < options.objects; i++) {
      const created = await engine.create("configmaps", `ns-${i % 10}`, configMap(i, 0));
      live.set(keyOf(created), created);
    }
    http = new SimHttpServer({ backend: new EngineBackend(engine), clock });
    const url = await http.start();
    client = new KubeClient({ server: url, userAgent: DEMO_USER_AGENT }, { clock });

    const metrics = new PromMetrics();
    const informer = newSharedIndexInformer<KubeObject>(
      listWatchFor(client, builtinResources.configmaps),
      { apiVersion: "v1", kind: "ConfigMap" },
      {
        name: "demo-configmaps",
        clock,
        rand: seededRand(options.seed + 3),
        indexers: { [NamespaceIndex]: metaNamespaceIndexFunc },
        metrics,
        metricLabels: { name: "demo-configmaps", group: "", version: "v1", resource: "configmaps" },
      },
    );
    const calls = { adds: 0, updates: 0, deletes: 0 };
    const registration = informer.addEventHandler({
      onAdd: () => void calls.adds++,
      onUpdate: () => void calls.updates++,
      onDelete: () => void calls.deletes++,
    });

    const phases: string[] = [];
    let lastPhase: ReflectorPhase | undefined;
    sub = informer.status$.subscribe((s) => {
      const phase = s.reflector?.phase;
      if (phase !== undefined && phase !== lastPhase) {
        lastPhase = phase;
        const err = s.reflector?.lastError;
        const why = err !== undefined && phase === "backing-off" ? ` (${err.message.slice(0, 90)})` : "";
        phases.push(phase);
        out(`  reflector: ${phase}${why}`);
      }
    });

    out(
      `informer demo: simulated kube-apiserver at ${url}, ${options.objects} ConfigMaps, ` +
        `churn ${options.rate}/s for ${options.seconds}s, seed ${options.seed} (fixes the writes, not the timing)`,
    );
    const started = clock.now();
    let runFailure: unknown;
    running = informer.run(ac.signal).catch((err: unknown) => {
      runFailure = err;
    });
    while (!registration.hasSynced()) {
      if (runFailure !== undefined || clock.since(started) >= syncTimeoutMs) {
        const reflector = informer.status().reflector;
        const cause =
          runFailure !== undefined
            ? `the informer failed: ${runFailure instanceof Error ? runFailure.message : String(runFailure)}`
            : `reflector ${reflector?.phase ?? "not started"}, last error: ${reflector?.lastError?.message ?? "none"}`;
        throw new Error(
          `demo: the informer did not sync the ${options.objects} ConfigMaps from ${url} within ${syncTimeoutMs} ms ` +
            `(${informer.getIndexer().listKeys().length} in its store; ${cause})`,
        );
      }
      await clock.sleep(10);
    }
    const syncMs = clock.since(started);
    out(`  synced ${informer.getIndexer().list().length} objects in ${syncMs} ms`);

    // Churn: another writer updates, creates and deletes at a steady rate (in-process, straight into the engine).
    let changes = 0;
    let next = options.objects;
    const perSecond: number[] = [];
    const tickMs = 50;
    const perTick = Math.max(1, Math.round((options.rate * tickMs) / 1000));
    const ticks = Math.round((options.seconds * 1000) / tickMs);
    const pick = (): KubeObject => {
      // Map iteration order is insertion order; a random offset into it is a fair pick without an index array.
      let skip = Math.floor(rand.float() * live.size);
      for (const o of live.values()) if (skip-- === 0) return o;
      throw new Error("demo: pick from an empty set");
    };
    for (let t = 0; t < ticks; t++) {
      for (let k = 0; k < perTick; k++) {
        const r = rand.float();
        if (r < 0.6 && live.size > 0) {
          const obj = pick();
          const ns = obj.metadata?.namespace ?? "";
          const data = { ...(obj.data as Record<string, string>), generation: String(changes) };
          const updated = await engine.update("configmaps", ns, obj.metadata?.name ?? "", { ...obj, data });
          live.set(keyOf(updated), updated);
        } else if (r < 0.8 || live.size === 0) {
          const i = next++;
          const created = await engine.create("configmaps", `ns-${i % 10}`, configMap(i, 0));
          live.set(keyOf(created), created);
        } else {
          const obj = pick();
          await engine.delete("configmaps", obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
          live.delete(keyOf(obj));
        }
        changes++;
      }
      const second = Math.floor((t * tickMs) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + perTick;
      if (t === Math.floor(ticks / 3)) {
        const n = engine.dropWatches("configmaps");
        out(`  fault: ${n} watch connection(s) dropped (expect a re-watch from the last RV, no relist)`);
      }
      if (t === Math.floor((2 * ticks) / 3)) {
        const downtime = options.downtimeMs ?? 1000;
        out(
          `  fault: configmaps watch cache re-initialized, unready for ${downtime} ms ` +
            "(expect 429s, then 410 for the old RV and one relist)",
        );
        engine.reinitializeCache("configmaps", downtime);
      }
      await clock.sleep(tickMs);
    }

    // Let the informer catch up, then compare its store with the server's storage.
    const mismatch = () => firstMismatch(engine.storage.snapshot(configmaps), informer);
    const deadline = clock.now() + convergeTimeoutMs;
    let diff = mismatch();
    while (diff !== undefined && clock.now() < deadline) {
      await clock.sleep(20);
      diff = mismatch();
    }
    const converged = diff === undefined;
    const serverSize = engine.storage.count(configmaps);
    const storeSize = informer.getIndexer().listKeys().length;

    const status = informer.status();
    const counts = status.reflector?.counts;
    const relists = Object.fromEntries(Object.entries(counts?.relists ?? {}).filter(([, n]) => n > 0));
    const max = Math.max(0, ...perSecond);
    out("  changes per second:");
    for (const [i, n] of perSecond.entries()) out(`    ${String(i).padStart(3)}s ${bar(n ?? 0, max)} ${n ?? 0}`);
    out(
      `  handler calls: ${calls.adds} adds, ${calls.updates} updates, ${calls.deletes} deletes; ` +
        `lists ${counts?.lists ?? 0}, watch-lists ${counts?.watchLists ?? 0}, watches ${counts?.watches ?? 0}, ` +
        `relists ${JSON.stringify(relists)}`,
    );
    const serverRequests: Record<string, number> = {};
    for (const row of engine.accounting.rows()) {
      if (row.userAgent !== DEMO_USER_AGENT) continue;
      const key = `${row.verb} ${row.code}${row.servedFrom === "" ? "" : ` from ${row.servedFrom}`}`;
      serverRequests[key] = (serverRequests[key] ?? 0) + row.count;
    }
    out("  requests the apiserver saw from the informer:");
    for (const [key, n] of Object.entries(serverRequests).sort()) out(`    ${key.padEnd(28)} ${n}`);
    const metricText = await metrics.render();
    for (const line of metricText.split("\n")) {
      if (line.startsWith("informer_") && !line.includes("_bucket")) out(`  ${line}`);
    }
    out(
      converged
        ? `converged: store holds ${storeSize} objects, equal to the apiserver's (${changes} changes applied)`
        : `NOT converged after ${convergeTimeoutMs} ms: store ${storeSize} vs apiserver ${serverSize} objects; ` +
            `first difference: ${diff}`,
    );
    return {
      converged,
      ...(diff !== undefined && { mismatch: diff }),
      url,
      syncMs,
      changes,
      storeSize,
      serverSize,
      handlerCalls: calls,
      lists: counts?.lists ?? 0,
      watches: counts?.watches ?? 0,
      relists,
      phases,
      serverRequests,
    };
  } finally {
    // Whatever happened: stop the informer (and wait for it), then the client, the server and the engine. A step
    // that fails is reported and does not keep the next ones from running.
    const steps: Array<[string, () => unknown]> = [
      [
        "stop the informer",
        async () => {
          ac.abort();
          await running;
        },
      ],
      ["unsubscribe", () => sub?.unsubscribe()],
      ["close the client", () => client?.close()],
      ["close the HTTP server", () => http?.close()],
      ["stop the engine", () => engine.stop()],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (err) {
        out(`  cleanup: could not ${what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
