// Study 003: StatefulSets are slow to get their pods because a 30 s resync keeps the controller's queue full.
import type { KubeObject } from "@informer-ts/apimachinery";
import { metaNamespaceKeyFunc, newSharedIndexInformer } from "@informer-ts/cache";
import { builtinResources } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import type { ReportChart } from "../../report/report-chart.js";
import type { StudyReport, SummaryRow, VariantResult } from "../../report/study-report.js";
import type { ProcessingCost } from "../../runtime/processing-cost.js";
import { requestsByServedFrom, StudyRuntime } from "../../runtime/study-runtime.js";
import { openStudyServer, studyClock } from "../../runtime/study-server.js";
import { ProbePods } from "./probe-pods.js";

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
  /** Virtual length of each variant's run in s. Default 600 (the last probe's pods, one sync each, need it). */
  readonly durationSeconds?: number;
  /** New StatefulSets created during the run, whose wait is measured. Default 5. */
  readonly probes?: number;
  /** Virtual time of the first probe in s (after the initial pass). Default 120. */
  readonly probeStartSeconds?: number;
  /** Virtual seconds between probes. Default 25. */
  readonly probeIntervalSeconds?: number;
  /**
   * Replicas of each probe StatefulSet (the write-up does not say; 3 is a common quorum size). With `OrderedReady`
   * each pod takes its own sync, behind the backlog. Default 3.
   */
  readonly replicas?: number;
  /** Virtual seconds from a pod's creation to Running and Ready (scheduling, image, readiness). Default 10. */
  readonly podReadySeconds?: number;
  /**
   * The probes' `spec.podManagementPolicy`: `OrderedReady` (the default upstream) creates one pod per sync and
   * waits for it to be Ready; `Parallel` creates every missing pod in one sync. Default `OrderedReady`.
   */
  readonly podManagementPolicy?: "OrderedReady" | "Parallel";
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
export async function runStatefulSetResync(options: StatefulSetResyncOptions = {}): Promise<StudyReport> {
  const o = {
    statefulsets: options.statefulsets ?? 2000,
    costMs: options.costMs ?? 40,
    costSpreadMs: options.costSpreadMs ?? 0,
    resyncSeconds: options.resyncSeconds ?? 30,
    workers: options.workers ?? 5,
    durationSeconds: options.durationSeconds ?? 600,
    probes: options.probes ?? 5,
    probeStartSeconds: options.probeStartSeconds ?? 120,
    probeIntervalSeconds: options.probeIntervalSeconds ?? 25,
    replicas: options.replicas ?? 3,
    podReadySeconds: options.podReadySeconds ?? 10,
    podManagementPolicy: options.podManagementPolicy ?? "OrderedReady",
    sampleSeconds: options.sampleSeconds ?? 1,
    seed: options.seed ?? 1,
  };
  if (!Number.isInteger(o.replicas) || o.replicas < 1)
    throw new RangeError(`replicas must be an integer ≥ 1, got ${o.replicas}`);
  if (!(o.podReadySeconds >= 0)) throw new RangeError(`podReadySeconds must be ≥ 0, got ${o.podReadySeconds}`);
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
      `${o.probes} probe${o.probes === 1 ? "" : "s"} (${o.replicas} replica${o.replicas === 1 ? "" : "s"}, ${o.podManagementPolicy}, Ready after ${o.podReadySeconds} s) ` +
      `from ${o.probeStartSeconds} s every ${o.probeIntervalSeconds} s, seed ${o.seed}`,
    variants,
    summary: summarize(variants, o),
    charts: [probeWaitChart(variants, o)],
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
  const sts = (name: string, replicas = 1): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      podManagementPolicy: o.podManagementPolicy,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "app:1" }] } },
    },
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
  const pods = new ProbePods(clock, o, (key) => rt.enqueue(key));
  const cost: ProcessingCost =
    o.costSpreadMs > 0
      ? { kind: "uniform", minMs: o.costMs - o.costSpreadMs, maxMs: o.costMs + o.costSpreadMs }
      : o.costMs;
  const rt = new StudyRuntime({
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
      // A pod event since the last sync means work (a real controller's status write after it changes the RV).
      const podsChanged = pods.takeChanged(key);
      if (s.skip && !podsChanged && processedRV.get(key) === rv) return "skip";
      processedRV.set(key, rv);
      if (obj !== undefined) pods.sync(key);
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
      pods.track(`default/${name}`);
      sim
        .create(resource, "default", sts(name, o.replicas))
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
  const since = (key: string, at: number | undefined) =>
    at === undefined ? undefined : at - (createdAt.get(key) ?? at);
  const allCreated = probeNames.map((k) => since(k, pods.allCreatedAt(k)));
  const done = allCreated.filter((w): w is number => w !== undefined);
  const unfinished = probeNames.filter((k) => pods.allCreatedAt(k) === undefined);
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
      probeAllPodsMinSeconds: sec(done.length > 0 ? Math.min(...done) : undefined),
      probeAllPodsMaxSeconds: sec(done.length > 0 ? Math.max(...done) : undefined),
      probesPodsUnfinished: unfinished.length,
      // An unfinished probe has waited at least until the end of the run, with this many of its pods created.
      probeAllPodsLowerBoundSeconds:
        unfinished.length > 0 ? Math.min(...unfinished.map((k) => (end - (createdAt.get(k) ?? end)) / 1000)) : null,
      probePodsCreatedMin: probeNames.length > 0 ? Math.min(...probeNames.map((k) => pods.created(k))) : null,
      probeSyncsPerPodMax: probeNames.length > 0 ? Math.max(...probeNames.map((k) => pods.syncs(k))) : null,
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

interface SummaryParams {
  readonly statefulsets: number;
  readonly costMs: number;
  readonly resyncSeconds: number;
  readonly replicas: number;
  readonly podReadySeconds: number;
  readonly podManagementPolicy: string;
}

/** The worst probe's wait until all its pods were created: measured, or its lower bound when some never were. */
function worstAllPods(f: VariantResult["figures"]): { seconds: number; lowerBound: boolean } {
  const done = f.probeAllPodsMaxSeconds ?? 0;
  const open = (f.probesPodsUnfinished ?? 0) > 0 ? (f.probeAllPodsLowerBoundSeconds ?? 0) : 0;
  return { seconds: Math.max(done, open), lowerBound: open > done };
}

/** The study's key figure: each variant's new StatefulSets' wait for their first pod and for all their pods. */
function probeWaitChart(variants: readonly VariantResult[], o: SummaryParams): ReportChart {
  const lowerBounds = variants.filter((v) => worstAllPods(v.figures).lowerBound).map((v) => v.name);
  return {
    kind: "bar",
    frame: {
      id: "new-statefulset-wait",
      title: `New StatefulSet's wait for its ${o.replicas} pods (worst probe, ${o.podManagementPolicy})`,
      xLabel: "variant",
      yLabel: "seconds after creation",
    },
    categories: variants.map((v) => v.name),
    series: [
      { name: "first pod created (first sync)", values: variants.map((v) => v.figures.probeWaitMaxSeconds ?? 0) },
      { name: `all ${o.replicas} pods created`, values: variants.map((v) => worstAllPods(v.figures).seconds) },
    ],
    notes: [
      "The write-up: minutes from creation to pods; a task sometimes failed past 300 s.",
      ...(lowerBounds.length > 0
        ? [`Lower bounds (some probe's pods were still missing at the end of the run): ${lowerBounds.join("; ")}.`]
        : []),
    ],
  };
}

function summarize(variants: readonly VariantResult[], o: SummaryParams): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const n = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? "—" : x.toFixed(digits));
  for (const v of variants) {
    const f = v.figures;
    const problem = f.variant === 0;
    const fix1 = f.variant === 1;
    rows.push({
      variant: v.name,
      metric:
        f.variant === 3
          ? "first pass over every StatefulSet"
          : `first pass over every StatefulSet (${o.statefulsets} × ${o.costMs} ms = ${((o.statefulsets * o.costMs) / 1000).toFixed(0)} s of work)`,
      writeUp: "—",
      measured: `${n(f.firstFullPassSeconds)} s`,
      figure: "measured",
    });
    rows.push({
      variant: v.name,
      metric: "queue depth after the first pass (min–max)",
      writeUp: problem ? "2000+ down to 1525, then back up with the next resync (003's demo)" : fix1 ? "≈ 0" : "—",
      measured: `${n(f.steadyQueueMin, 0)}–${n(f.steadyQueueMax, 0)}`,
      figure: "measured",
    });
    const unprocessed = f.probesUnprocessed ?? 0;
    rows.push({
      variant: v.name,
      metric: "new StatefulSet's wait to its first sync, which creates its first pod (min–max)",
      writeUp: problem
        ? "minutes from creation to pods (003; a task sometimes failed past 300 s)"
        : fix1
          ? "no backlog to wait behind (fix 1, kubernetes#75622)"
          : "—",
      measured:
        `${n(f.probeWaitMinSeconds)}–${n(f.probeWaitMaxSeconds)} s` +
        (unprocessed > 0 ? `, ${unprocessed} never taken (≥ ${n(f.probeWaitLowerBoundSeconds)} s)` : ""),
      figure: "measured",
    });
    const unfinished = f.probesPodsUnfinished ?? 0;
    rows.push({
      variant: v.name,
      metric: `new StatefulSet's wait until all ${o.replicas} pods are created (${o.podManagementPolicy}, Ready after ${o.podReadySeconds} s; min–max)`,
      writeUp: problem ? "minutes from creation to pods (003)" : "—",
      measured:
        `${n(f.probeAllPodsMinSeconds)}–${n(f.probeAllPodsMaxSeconds)} s` +
        (unfinished > 0
          ? `, ${unfinished} unfinished (≥ ${n(f.probeAllPodsLowerBoundSeconds)} s, at least ${f.probePodsCreatedMin ?? 0} pods created)`
          : "") +
        `; up to ${f.probeSyncsPerPodMax ?? 0} syncs before all existed`,
      figure: "measured",
    });
    if (problem) {
      // The write-up's two claims, each with its verdict and the reason.
      const all = worstAllPods(f);
      const first = f.probeWaitMaxSeconds ?? 0;
      const pass = (o.statefulsets * o.costMs) / 1000;
      const bound = all.lowerBound ? "≥ " : "";
      rows.push({
        variant: v.name,
        metric: "verdict: minutes from creation to pods",
        writeUp: "minutes (003)",
        measured:
          all.seconds >= 60
            ? `reproduced: the first pod after up to ${n(first)} s (one pass is ${n(pass)} s of work), all ${o.replicas} after ${bound}${n(all.seconds)} s — each pod's sync waits behind the backlog`
            : `not reproduced: all ${o.replicas} pods within ${n(all.seconds)} s; the backlog (one pass is ${n(pass)} s of work) is under a minute at these parameters`,
        figure: "measured",
      });
      const perPod = o.replicas > 0 ? all.seconds / o.replicas : 0;
      rows.push({
        variant: v.name,
        metric: "verdict: a task failing past 300 s",
        writeUp: "a task sometimes failed past 300 s (003)",
        measured:
          all.seconds >= 300
            ? `reproduced: ${bound}${n(all.seconds)} s until all ${o.replicas} pods exist`
            : `not reproduced at ${o.replicas} replicas: ${n(all.seconds)} s, about ${n(perPod)} s per pod; ` +
              `${perPod > 0 ? Math.ceil(300 / perPod) : "—"} replicas (OrderedReady) would pass 300 s at this backlog`,
        figure: "measured",
      });
    }
  }
  return rows;
}
