import { type KubeObject, newResourceExpired } from "@informer-ts/apimachinery";
import {
  FakeControllerSource,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newSharedIndexInformer,
  type ReflectorPhase,
} from "@informer-ts/cache";
import { type Clock, realClock, seededRand } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** ConfigMaps in the source before the informer starts. */
  readonly objects: number;
  /** Churn phase length in seconds. */
  readonly seconds: number;
  /** Changes per second during churn. */
  readonly rate: number;
  readonly seed: number;
  readonly clock?: Clock;
  readonly out?: (line: string) => void;
}

/** What the demo measured; `converged` is the verdict. */
export interface DemoResult {
  readonly converged: boolean;
  readonly syncMs: number;
  readonly changes: number;
  readonly storeSize: number;
  readonly sourceSize: number;
  readonly handlerCalls: { adds: number; updates: number; deletes: number };
  readonly lists: number;
  readonly watches: number;
  readonly relists: Record<string, number>;
  readonly phases: string[];
}

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

/**
 * The informer demo: a SharedIndexInformer (reflector → RealFIFO in atomic mode → processDeltas → indexer →
 * handler) syncs from an in-memory source that has a global resourceVersion, pagination, watch-list and
 * compaction. During churn the demo drops every watch (the reflector re-watches without relisting) and then
 * compacts the history and ends every watch with a 410 Expired ERROR event (the reflector relists). At
 * the end the informer's store must equal the source: that is the verdict, printed with the numbers.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = options.clock ?? realClock;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const rand = seededRand(options.seed);
  const source = new FakeControllerSource<KubeObject>({
    clock,
    rand,
    paginate: true,
    bookmarkKind: { apiVersion: "v1", kind: "ConfigMap" },
  });
  for (let i = 0; i < options.objects; i++) source.add(configMap(i, 0));

  const metrics = new PromMetrics();
  const informer = newSharedIndexInformer<KubeObject>(
    source,
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
      const why = err !== undefined && phase === "backing-off" ? ` (${err.message.slice(0, 80)})` : "";
      phases.push(phase);
      out(`  reflector: ${phase}${why}`);
    }
  });

  out(
    `informer demo: ${options.objects} ConfigMaps, churn ${options.rate}/s for ${options.seconds}s, seed ${options.seed}`,
  );
  const ac = new AbortController();
  const started = clock.now();
  const running = informer.run(ac.signal);
  while (!registration.hasSynced()) await clock.sleep(10);
  const syncMs = clock.since(started);
  out(`  synced ${informer.getIndexer().list().length} objects in ${syncMs} ms`);

  // Churn: updates, creates and deletes at a steady rate, with two faults on the way.
  let changes = 0;
  let next = options.objects;
  const perSecond: number[] = [];
  const tickMs = 50;
  const perTick = Math.max(1, Math.round((options.rate * tickMs) / 1000));
  const ticks = Math.round((options.seconds * 1000) / tickMs);
  for (let t = 0; t < ticks; t++) {
    for (let k = 0; k < perTick; k++) {
      const keys = [...source.items.values()];
      const r = rand.float();
      if (r < 0.6 && keys.length > 0) {
        const obj = keys[Math.floor(rand.float() * keys.length)]!;
        source.modify({ ...obj, data: { ...(obj.data as object), generation: String(changes) } });
      } else if (r < 0.8 || keys.length === 0) {
        source.add(configMap(next++, 0));
      } else {
        source.delete(keys[Math.floor(rand.float() * keys.length)]!);
      }
      changes++;
    }
    const second = Math.floor((t * tickMs) / 1000);
    perSecond[second] = (perSecond[second] ?? 0) + perTick;
    if (t === Math.floor(ticks / 3)) {
      out("  fault: every watch dropped (expect a re-watch from the last RV, no relist)");
      source.closeWatches();
    }
    if (t === Math.floor((2 * ticks) / 3)) {
      out("  fault: history compacted, watches get 410 Expired (expect a relist from the last RV)");
      source.compact();
      source.sendError(newResourceExpired(`too old resource version: 1 (${source.resourceVersion})`).status);
    }
    await clock.sleep(tickMs);
  }

  // Let the informer catch up, then compare with the source.
  const equal = () => {
    const store = informer.getIndexer();
    if (store.listKeys().length !== source.items.size) return false;
    for (const [key, obj] of source.items) {
      const got = store.getByKey(key);
      if (got?.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return false;
    }
    return true;
  };
  const deadline = clock.now() + 10_000;
  while (!equal() && clock.now() < deadline) await clock.sleep(20);
  const converged = equal();

  const status = informer.status();
  ac.abort();
  await running;
  sub.unsubscribe();

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
  const metricText = await metrics.render();
  for (const line of metricText.split("\n")) {
    if (line.startsWith("informer_") && !line.includes("_bucket")) out(`  ${line}`);
  }
  out(
    converged
      ? `converged: store holds ${status.storeSize} objects, equal to the source (${changes} changes applied)`
      : `NOT converged: store ${informer.getIndexer().listKeys().length} vs source ${source.items.size}`,
  );
  return {
    converged,
    syncMs,
    changes,
    storeSize: informer.getIndexer().listKeys().length,
    sourceSize: source.items.size,
    handlerCalls: calls,
    lists: counts?.lists ?? 0,
    watches: counts?.watches ?? 0,
    relists,
    phases,
  };
}
