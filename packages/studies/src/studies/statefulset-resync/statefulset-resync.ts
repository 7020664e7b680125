// Study 003: StatefulSets are slow to get their pods because a 30 s resync keeps the controller's queue full.
import type { KubeObject } from "@informer-ts/apimachinery";
import { metaNamespaceKeyFunc, newSharedIndexInformer } from "@informer-ts/cache";
import { builtinResources } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import type { ScenarioReport, SummaryRow, VariantResult } from "../../report/study-report.js";
import type { ProcessingCost } from "../../runtime/processing-cost.js";
import { requestsByServedFrom, ScenarioRuntime } from "../../runtime/study-runtime.js";
import { openStudyServer, studyClock } from "../../runtime/study-server.js";

/** Options of {@link runStatefulSetResync}; the defaults are the write-up's values. */
export interface StatefulSetResyncOptions {
  /** StatefulSets in the cluster (write-up: "2000+"). Default 2000. */
  readonly statefulsets?: number;
  /** Virtual processing cost per sync in ms (write-up: 40 ms on average). Default 40. */
  readonly costMs?: number;
  /** Uniform spread of the cost, ± ms around `costMs`, drawn from the seed. Default 0 (fixed). */
  readonly costSpreadMs?: number;
  /** The handler's resync period in s (the StatefulSet controller's `statefulSetResyncPeriod`: 30 s). Default 30. */
  readonly resyncSeconds?: number;
  /** Workers of the "N workers" variant (kube-controller-manager's --concurrent-statefulset-syncs: 5). Default 5. */
  readonly workers?: number;
  /** Virtual length of each variant's run in s. Default 360. */
  readonly durationSeconds?: number;
  /** New StatefulSets created during the run, whose wait is measured. Default 5. */
  readonly probes?: number;
  /** Virtual time of the first probe in s (after the initial pass). Default 120. */
  readonly probeStartSeconds?: number;
  /** Virtual seconds between probes. Default 25. */
  readonly probeIntervalSeconds?: number;
  /** Sampling period in virtual s. Default 1. */
  readonly sampleSeconds?: number;
  /** Seed of the simulator's and the cost's randomness. Default 1. */
  readonly seed?: number;
  /** Sample the heap too (not deterministic). Default false. */
  readonly sampleHeap?: boolean;
  /**
   * Run on the real clock, the informer over real HTTP (the simulated apiserver served by `SimHttpServer` on
   * 127.0.0.1, listed and watched by `@informer-ts/client`); every duration is then real seconds and the processing
   * cost real milliseconds. Default false (virtual time, in process).
   */
  readonly realTime?: boolean;
  /** Which variants to run (default all four, see {@link STATEFULSET_RESYNC_VARIANTS}). */
  readonly variants?: readonly StatefulSetResyncVariant[];
  /** Progress lines (one per 30 virtual s per variant). */
  readonly progress?: (line: string) => void;
}

/** The settings compared: the problem, both fixes of the write-up, and more workers. */
export type StatefulSetResyncVariant = "resync" | "no-resync" | "skip-processed-rv" | "workers";

/** Every variant, in the order they run and are reported. */
export const STATEFULSET_RESYNC_VARIANTS: readonly StatefulSetResyncVariant[] = [
  "resync",
  "no-resync",
  "skip-processed-rv",
  "workers",
];

interface VariantSetting {
  readonly label: string;
  readonly resyncMs: number;
  readonly workers: number;
  readonly skip: boolean;
}

/**
 * Runs study 003 in virtual time (or with `realTime` on the real clock over HTTP): `statefulsets` StatefulSets in a simulated apiserver, a shared informer with the
 * StatefulSet controller's handler (every add/update/delete and every resync enqueues the key), a rate-limited
 * queue and workers paying `costMs` per key; new StatefulSets ("probes") are created mid-run and their wait from
 * creation to being taken by a worker is measured. Variants: resync with 1 worker (the problem), no resync (fix 1),
 * resync with a processed-resourceVersion cache that skips unchanged keys (fix 2), resync with N workers.
 */
export async function runStatefulSetResync(options: StatefulSetResyncOptions = {}): Promise<ScenarioReport> {
  const o = {
    statefulsets: options.statefulsets ?? 2000,
    costMs: options.costMs ?? 40,
    costSpreadMs: options.costSpreadMs ?? 0,
    resyncSeconds: options.resyncSeconds ?? 30,
    workers: options.workers ?? 5,
    durationSeconds: options.durationSeconds ?? 360,
    probes: options.probes ?? 5,
    probeStartSeconds: options.probeStartSeconds ?? 120,
    probeIntervalSeconds: options.probeIntervalSeconds ?? 25,
    sampleSeconds: options.sampleSeconds ?? 1,
    seed: options.seed ?? 1,
  };
  if (o.costSpreadMs > o.costMs)
    throw new RangeError(`cost spread (${o.costSpreadMs} ms) exceeds the cost (${o.costMs} ms)`);
  const lastProbeSeconds = o.probeStartSeconds + (o.probes - 1) * o.probeIntervalSeconds;
  if (o.probes > 0 && lastProbeSeconds > o.durationSeconds)
    throw new RangeError(
      `the last probe would be created at ${lastProbeSeconds} s, after the end of the run (${o.durationSeconds} s): ` +
        "raise the duration, or lower the probes, their start or their interval",
    );
  const settings: Record<StatefulSetResyncVariant, VariantSetting> = {
    resync: {
      label: `resync ${o.resyncSeconds}s, 1 worker`,
      resyncMs: o.resyncSeconds * 1000,
      workers: 1,
      skip: false,
    },
    "no-resync": { label: "no resync, 1 worker", resyncMs: 0, workers: 1, skip: false },
    "skip-processed-rv": {
      label: `resync ${o.resyncSeconds}s, skip processed RV`,
      resyncMs: o.resyncSeconds * 1000,
      workers: 1,
      skip: true,
    },
    workers: {
      label: `resync ${o.resyncSeconds}s, ${o.workers} workers`,
      resyncMs: o.resyncSeconds * 1000,
      workers: o.workers,
      skip: false,
    },
  };
  const realTime = options.realTime ?? false;
  const variants: VariantResult[] = [];
  for (const v of options.variants ?? STATEFULSET_RESYNC_VARIANTS)
    variants.push(await runVariant(v, settings[v], o, options));
  return {
    scenario: "statefulset-resync",
    title: "StatefulSet creation is slow: a 30 s resync keeps the queue full",
    source:
      "shared/background/003: 2000+ StatefulSets × 40 ms = 80 s per pass > 30 s resync; new StatefulSets wait minutes",
    params: { ...o, realTime },
    description:
      `${o.statefulsets} StatefulSets × ${o.costMs}${o.costSpreadMs > 0 ? ` ± ${o.costSpreadMs}` : ""} ms, ` +
      `resync ${o.resyncSeconds} s, ${o.durationSeconds} ${realTime ? "real s per variant over HTTP (--real-time)" : "virtual s per variant"}, ` +
      `${o.probes} probe${o.probes === 1 ? "" : "s"} from ${o.probeStartSeconds} s every ${o.probeIntervalSeconds} s, seed ${o.seed}`,
    variants,
    summary: summarize(variants, o),
  };
}

async function runVariant(
  id: StatefulSetResyncVariant,
  s: VariantSetting,
  o: Required<Omit<StatefulSetResyncOptions, "variants" | "progress" | "sampleHeap" | "realTime">>,
  options: StatefulSetResyncOptions,
): Promise<VariantResult> {
  const { clock } = studyClock(options.realTime ?? false);
  const rand = seededRand(o.seed);
  const sim = new SimApiServer({ clock, rand });
  const resource = "statefulsets.apps";
  const sts = (name: string): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default" },
    spec: { replicas: 1, serviceName: name },
  });
  for (let i = 0; i < o.statefulsets; i++)
    await sim.create(resource, "default", sts(`sts-${String(i).padStart(5, "0")}`));
  const server = await openStudyServer(sim, { http: options.realTime ?? false, clock });
  const informer = newSharedIndexInformer<KubeObject>(server.listerWatcher(builtinResources.statefulsets), undefined, {
    clock,
    rand,
    resyncPeriod: s.resyncMs,
  });
  const processedRV = new Map<string, string>();
  const createdAt = new Map<string, number>();
  const probeWaitMs = new Map<string, number>();
  let everyOnceAt: number | null = null;
  const cost: ProcessingCost =
    o.costSpreadMs > 0
      ? { kind: "uniform", minMs: o.costMs - o.costSpreadMs, maxMs: o.costMs + o.costSpreadMs }
      : o.costMs;
  const rt = new ScenarioRuntime({
    clock,
    rand,
    workers: s.workers,
    cost,
    sampleIntervalMs: o.sampleSeconds * 1000,
    sampleHeap: options.sampleHeap ?? false,
    requests: requestsByServedFrom(sim.accounting),
    onTaken: (key) => {
      const c = createdAt.get(key);
      if (c !== undefined && !probeWaitMs.has(key)) probeWaitMs.set(key, clock.now() - c);
    },
    process: (key) => {
      const obj = informer.getIndexer().getByKey(key);
      const rv = obj?.metadata?.resourceVersion ?? "";
      if (s.skip && processedRV.get(key) === rv) return "skip";
      processedRV.set(key, rv);
      if (everyOnceAt === null && processedRV.size >= o.statefulsets) everyOnceAt = clock.now() - t0;
      return undefined;
    },
  });
  const enqueue = (obj: unknown) => rt.enqueue(metaNamespaceKeyFunc(obj));
  informer.addEventHandlerWithResyncPeriod(
    { onAdd: enqueue, onUpdate: (_old, cur) => enqueue(cur), onDelete: enqueue },
    s.resyncMs,
  );
  const ac = new AbortController();
  const t0 = clock.now();
  const running = informer.run(ac.signal);
  const probeNames: string[] = [];
  for (let i = 0; i < o.probes; i++) {
    const name = `probe-${i}`;
    probeNames.push(`default/${name}`);
    clock.afterFunc((o.probeStartSeconds + i * o.probeIntervalSeconds) * 1000, () => {
      createdAt.set(`default/${name}`, clock.now());
      sim
        .create(resource, "default", sts(name))
        .catch((err: unknown) => rt.errors.push({ key: name, message: String(err) }));
    });
  }
  try {
    await rt.run({
      forMs: o.durationSeconds * 1000,
      stepMs: o.sampleSeconds * 1000,
      onProgress: (ms) => {
        if (ms % 30_000 === 0)
          options.progress?.(
            `[${id}] t=${ms / 1000}s queue=${rt.queue.len()} processed=${rt.processed()} skipped=${rt.skipped()}`,
          );
      },
    });
  } finally {
    await rt.stop();
    ac.abort();
    await running;
    await server.close();
    sim.stop();
  }
  const end = clock.now();
  const waits = probeNames.map((k) => probeWaitMs.get(k) ?? null);
  const unprocessed = probeNames.filter((k) => !probeWaitMs.has(k)).length;
  const steady = rt.samples().filter((x) => x.t >= o.probeStartSeconds * 1000);
  const depths = steady.map((x) => x.queueDepth);
  const measured = waits.filter((w): w is number => w !== null);
  const sec = (ms: number | undefined) => (ms === undefined ? null : ms / 1000);
  return {
    name: s.label,
    samples: rt.samples(),
    waitBuckets: rt.waitHistogram.buckets(),
    figures: {
      firstFullPassSeconds: sec(everyOnceAt ?? undefined),
      steadyQueueMin: depths.length > 0 ? Math.min(...depths) : null,
      steadyQueueMax: depths.length > 0 ? Math.max(...depths) : null,
      probeWaitMinSeconds: sec(measured.length > 0 ? Math.min(...measured) : undefined),
      probeWaitMaxSeconds: sec(measured.length > 0 ? Math.max(...measured) : undefined),
      probesUnprocessed: unprocessed,
      // A probe never taken waited at least until the end of the run.
      probeWaitLowerBoundSeconds:
        unprocessed > 0
          ? Math.min(
              ...probeNames.filter((k) => !probeWaitMs.has(k)).map((k) => (end - (createdAt.get(k) ?? end)) / 1000),
            )
          : null,
      processed: rt.processed(),
      skipped: rt.skipped(),
      errors: rt.errors.length,
      // the informer's own requests (a watch is accounted when it ends, so after the run)
      informerRequests:
        sim.accounting.count({ verb: "list", resource: "statefulsets" }) +
        sim.accounting.count({ verb: "watch", resource: "statefulsets" }),
      variant: STATEFULSET_RESYNC_VARIANTS.indexOf(id),
    },
  };
}

function summarize(
  variants: readonly VariantResult[],
  o: { statefulsets: number; costMs: number; resyncSeconds: number },
): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const n = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? "—" : x.toFixed(digits));
  for (const v of variants) {
    const f = v.figures;
    const problem = f.variant === 0;
    const fix1 = f.variant === 1;
    rows.push({
      variant: v.name,
      metric: "first pass over every StatefulSet",
      writeUp:
        f.variant === 3
          ? "—"
          : `${((o.statefulsets * o.costMs) / 1000).toFixed(0)} s (${o.statefulsets} × ${o.costMs} ms)`,
      measured: `${n(f.firstFullPassSeconds)} s`,
    });
    rows.push({
      variant: v.name,
      metric: "queue depth after the first pass (min–max)",
      writeUp: problem ? "2000+ down to 1525, then back up with the next resync (003's demo)" : fix1 ? "≈ 0" : "—",
      measured: `${n(f.steadyQueueMin, 0)}–${n(f.steadyQueueMax, 0)}`,
    });
    const unprocessed = f.probesUnprocessed ?? 0;
    rows.push({
      variant: v.name,
      metric: "new StatefulSet's wait (min–max)",
      writeUp: problem
        ? "minutes from creation to pods (003; a task sometimes failed past 300 s)"
        : fix1
          ? "no backlog to wait behind (fix 1, kubernetes#75622)"
          : "—",
      measured:
        `${n(f.probeWaitMinSeconds)}–${n(f.probeWaitMaxSeconds)} s` +
        (unprocessed > 0 ? `, ${unprocessed} never taken (≥ ${n(f.probeWaitLowerBoundSeconds)} s)` : ""),
    });
  }
  return rows;
}
