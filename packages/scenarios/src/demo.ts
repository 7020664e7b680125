import type { KubeObject } from "@informer-ts/apimachinery";
import {
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newSharedIndexInformer,
  type ReflectorPhase,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { type Clock, realClock, seededRand } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** ConfigMaps on the server before the informer starts. */
  readonly objects: number;
  /** Churn phase length in seconds. */
  readonly seconds: number;
  /** Changes per second during churn. */
  readonly rate: number;
  readonly seed: number;
  /** How long the watch cache stays unready after the re-initialization fault (default 1 s). */
  readonly downtimeMs?: number;
  readonly clock?: Clock;
  readonly out?: (line: string) => void;
}

/** What the demo measured; `converged` is the verdict. */
export interface DemoResult {
  readonly converged: boolean;
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

const USER_AGENT = "informer-demo/0.1.0";

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
 * The informer demo against the embedded simulated kube-apiserver. The engine (`SimApiServer`: MVCC storage with one
 * global resourceVersion, a watch cache per resource) is served over real HTTP on 127.0.0.1 by `SimHttpServer`; a
 * `SharedIndexInformer` (reflector with watch-list → RealFIFO in atomic mode → processDeltas → indexer → handler)
 * syncs through `@informer-ts/client` exactly as it would from a cluster. While writes churn the store, two faults
 * are injected on the server: every watch connection is dropped (the reflector re-watches from its last RV without
 * relisting), then the ConfigMap watch cache is re-initialized (watchers closed, history emptied, 429 while it is
 * unready — the reflector backs off, gets 410 for its old RV and relists). At the end the informer's store must
 * equal the server's storage, key by key and resourceVersion by resourceVersion: that is the verdict.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = options.clock ?? realClock;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const rand = seededRand(options.seed);
  const engine = new SimApiServer({ clock, rand, log: (line) => out(`  apiserver: ${line}`) });
  const live = new Map<string, KubeObject>();
  for (let i = 0; i < options.objects; i++) {
    const created = await engine.create("configmaps", `ns-${i % 10}`, configMap(i, 0));
    live.set(keyOf(created), created);
  }
  const http = new SimHttpServer({ backend: new EngineBackend(engine), clock, rand });
  const url = await http.start();
  const client = new KubeClient({ server: url, userAgent: USER_AGENT }, { clock });

  const metrics = new PromMetrics();
  const informer = newSharedIndexInformer<KubeObject>(
    listWatchFor(client, builtinResources.configmaps),
    { apiVersion: "v1", kind: "ConfigMap" },
    {
      name: "demo-configmaps",
      clock,
      rand,
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
  const sub = informer.status$.subscribe((s) => {
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
      `churn ${options.rate}/s for ${options.seconds}s, seed ${options.seed}`,
  );
  const ac = new AbortController();
  const started = clock.now();
  const running = informer.run(ac.signal);
  while (!registration.hasSynced()) await clock.sleep(10);
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

  // Let the informer catch up, then compare with the server's storage.
  const equal = () => {
    const store = informer.getIndexer();
    if (store.listKeys().length !== live.size) return false;
    for (const [key, obj] of live) {
      if (store.getByKey(key)?.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return false;
    }
    return true;
  };
  const deadline = clock.now() + 30_000;
  while (!equal() && clock.now() < deadline) await clock.sleep(20);
  const converged = equal();
  const serverSize = engine.storage.count(engine.resource("configmaps"));

  const status = informer.status();
  ac.abort();
  await running;
  sub.unsubscribe();
  await client.close();
  await http.close();
  engine.stop();

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
    if (row.userAgent !== USER_AGENT) continue;
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
      ? `converged: store holds ${live.size} objects, equal to the apiserver's (${changes} changes applied)`
      : `NOT converged: store ${informer.getIndexer().listKeys().length} vs apiserver ${live.size}`,
  );
  return {
    converged,
    url,
    syncMs,
    changes,
    storeSize: informer.getIndexer().listKeys().length,
    serverSize,
    handlerCalls: calls,
    lists: counts?.lists ?? 0,
    watches: counts?.watches ?? 0,
    relists,
    phases,
    serverRequests,
  };
}
