// Study 002 (part 3): an initial sync by an RV "0" watch never finishes under churn, because the watch cache's
// dispatch budget closes a watcher still busy with its initial events; list-then-watch and watch-list compared.
import type { KubeList, KubeObject } from "@informer-ts/apimachinery";
import { type ListerWatcher, newSharedIndexInformer, type SharedIndexInformer } from "@informer-ts/cache";
import { builtinResources } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import type { ReportChart } from "../../report/report-chart.js";
import type { StudyReport, SummaryRow, VariantResult } from "../../report/study-report.js";
import type { Sample } from "../../runtime/sampler.js";
import { slowConsumer } from "../../runtime/slow-consumer.js";
import { requestsByServedFrom, StudyRuntime } from "../../runtime/study-runtime.js";
import { openStudyServer, studyClock } from "../../runtime/study-server.js";

/**
 * How the informer gets its initial state: `rv0-watch` — a watch from resourceVersion "0" instead of a LIST (the
 * write-up's idea: the synthetic ADDED events of an RV "0" watch stream the whole cache); `list-watch` — client-go's
 * LIST at RV "0" then a watch from the list's resourceVersion; `watch-list` — a streaming watch-list
 * (`sendInitialEvents=true`, the WatchListClient default since client-go 1.35).
 */
export type WatchRv0Approach = "rv0-watch" | "list-watch" | "watch-list";

/** Every approach, in the order they run and are reported. */
export const WATCH_RV0_APPROACHES: readonly WatchRv0Approach[] = ["rv0-watch", "list-watch", "watch-list"];

/** The sweep of {@link WatchRv0ChurnOptions.sweep}: every combination runs for every approach. */
export interface WatchRv0Sweep {
  readonly objects: readonly number[];
  readonly writesPerSecond: readonly number[];
  readonly consumerPerSecond: readonly number[];
}

/** Options of {@link runWatchRv0Churn}; the rates default to the write-up's values. */
export interface WatchRv0ChurnOptions {
  /** Objects (pods) in the cluster. Default 10 000 (this study's choice: the write-up gives no count). */
  readonly objects?: number;
  /** Updates per second during the run (write-up: 50/s in a mid-size cluster, 500/s in the largest). Default 50. */
  readonly writesPerSecond?: number;
  /** Objects per second the informer ingests (write-up: ~1,200 events/s for an empty watch). Default 1200. */
  readonly consumerPerSecond?: number;
  /** Virtual seconds each run lasts. Default 30. */
  readonly durationSeconds?: number;
  /**
   * Seconds of churn before the informer starts (default 80: the watch cache's 75 s history window and then some,
   * so the history and the watch channels are sized as a running cluster's).
   */
  readonly warmupSeconds?: number;
  /**
   * Run on the real clock over real HTTP (the simulated apiserver served by `SimHttpServer`, the informer on
   * `@informer-ts/client`) instead of in virtual time: seconds are real, and the run is not deterministic.
   */
  readonly realTime?: boolean;
  /** Approaches of the detailed runs (default all three). */
  readonly approaches?: readonly WatchRv0Approach[];
  /**
   * The frontier sweep: each cell runs every approach until it syncs or `durationSeconds` ends. `false` skips it.
   * Default objects 2000 and 10 000 × writes 10, 50, 200, 500 × consumer 1200.
   */
  readonly sweep?: WatchRv0Sweep | false;
  /** Sampling period of the detailed runs in virtual s. Default 0.5. */
  readonly sampleSeconds?: number;
  /** Seed of the churn's choices and the simulator's and informer's randomness. Default 1. */
  readonly seed?: number;
  /** Sample the heap too (not deterministic). Default false. */
  readonly sampleHeap?: boolean;
  /** Progress lines (one per detailed run and per sweep cell). */
  readonly progress?: (line: string) => void;
}

/** The default sweep (see {@link WatchRv0ChurnOptions.sweep}). */
export const WATCH_RV0_DEFAULT_SWEEP: WatchRv0Sweep = {
  objects: [2000, 10_000],
  writesPerSecond: [10, 50, 200, 500],
  consumerPerSecond: [1200],
};

/** One run of one approach at one setting. */
export interface WatchRv0Cell {
  readonly approach: WatchRv0Approach;
  readonly objects: number;
  readonly writesPerSecond: number;
  readonly consumerPerSecond: number;
  /** Virtual s from the informer's start until its store held every initial object (null: never). */
  readonly syncedAtSeconds: number | null;
  /** Virtual s until the dispatch budget first closed the informer's watch (null: never). */
  readonly firstCloseAtSeconds: number | null;
  /** Initial objects in the informer's store when its first closed watch stream ended (null: no close). */
  readonly initialReadAtFirstClose: number | null;
  /** Watches the dispatch budget closed during the run (`apiserver_terminated_watchers_total`). */
  readonly closes: number;
  /** The reflector's LISTs, watch-lists and watches. */
  readonly lists: number;
  readonly watchLists: number;
  readonly watches: number;
  /** Watch events the informer read. */
  readonly eventsRead: number;
  /** Updates written during the run. */
  readonly writes: number;
  /** Initial objects in the store at the end. */
  readonly heldAtEnd: number;
  /** resourceVersions the informer was behind the server at the end. */
  readonly behindAtEnd: number;
  /** The per-watcher channel size the cacher gave the informer's first watch. */
  readonly chanSize: number | null;
}

/** The churn's writer: a controller updating the pods' annotations (its field manager is `churn-controller`). */
const CHURN_USER_AGENT = "churn-controller/v1.0.0 (linux/amd64) informer-ts";

/** Pods of the study (the write-up's resource: its watch channel may reach 1000 events), spread over 100 nodes. */
function pod(i: number, v: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `pod-${String(i).padStart(6, "0")}`,
      namespace: "default",
      labels: { app: "churn" },
      annotations: { generation: String(v) },
    },
    spec: { nodeName: `node-${i % 100}`, containers: [{ name: "app", image: "registry.k8s.io/pause:3.10" }] },
  };
}

/**
 * A ListerWatcher whose LIST answers an empty list at resourceVersion "0" without asking the server, so the reflector
 * follows it with a watch from RV "0": the informer's initial state comes from that watch's synthetic ADDED events.
 */
export function rv0WatchListerWatcher<T>(lw: ListerWatcher<T>): ListerWatcher<T> {
  return {
    watchListSemanticsUnsupported: true,
    ...(lw.target !== undefined && { target: lw.target }),
    list: async (): Promise<KubeList<T>> => ({
      apiVersion: "v1",
      kind: "List",
      metadata: { resourceVersion: "0" },
      items: [],
    }),
    watch: (o, s) => lw.watch(o, s),
  };
}

interface CellSetting {
  readonly approach: WatchRv0Approach;
  readonly objects: number;
  readonly writesPerSecond: number;
  readonly consumerPerSecond: number;
  readonly durationSeconds: number;
  readonly sampleSeconds: number;
  readonly seed: number;
  readonly sampleHeap: boolean;
  readonly warmupSeconds: number;
  readonly realTime: boolean;
  /** Run the whole duration (detailed runs) instead of stopping once synced (sweep cells). */
  readonly full: boolean;
}

interface CellRun {
  readonly cell: WatchRv0Cell;
  readonly samples: readonly Sample[];
  /** (virtual s, initial objects held) per sample. */
  readonly held: readonly (readonly [number, number])[];
}

/** Runs one approach at one setting on a fresh simulated apiserver and clock. */
async function runCell(s: CellSetting): Promise<CellRun> {
  const { clock, fake } = studyClock(s.realTime);
  const rand = seededRand(s.seed);
  const closesAt: number[] = [];
  const sim = new SimApiServer({
    clock,
    rand: seededRand(s.seed + 1),
    // The WatchList gate only for watch-list: with it on, kube-apiserver ≥ 1.27 treats an RV "0" watch asking for
    // bookmarks as a defaulted watch-list; the write-up's v1.25 server had no such gate.
    watchList: s.approach === "watch-list",
    compactionIntervalMs: 0,
    logger: {
      log: (_level, message) => {
        if (message.startsWith("Forcing")) closesAt.push(clock.now());
      },
    },
  });
  const resource = "pods";
  const pods = sim.resource(resource);
  // Seeded as objects that existed before the server started (the registry's create defaults: a Pod's Pending
  // status), outside the request path, so the run's request accounting shows only the informer's requests.
  for (let i = 0; i < s.objects; i++) sim.registry.seed(pods, "default", pod(i, 0));
  // A cluster that has been running: the objects were created long ago (their events are out of the watch cache's
  // history), and the history and the watch channels are sized by the churn of the last 75 s. Without this the
  // history would still hold every create, and an informer could resume from any object's resourceVersion.
  sim.faults.reinitializeCache(resource);
  const server = await openStudyServer(sim, { http: s.realTime, clock });
  const source: ListerWatcher<KubeObject> = server.listerWatcher(builtinResources.pods);
  let eventsRead = 0;
  let firstEnd: { held: number } | undefined;
  let informer: SharedIndexInformer<KubeObject> | undefined;
  const initialHeld = () => {
    const store = informer?.getStore();
    return store === undefined ? 0 : store.listKeys().length;
  };
  const slow = slowConsumer(source, {
    clock,
    perSecond: s.consumerPerSecond,
    onEvent: () => {
      eventsRead++;
    },
    onWatchEnd: () => {
      if (firstEnd === undefined && closesAt.length > 0) firstEnd = { held: initialHeld() };
    },
  });
  const lw = s.approach === "rv0-watch" ? rv0WatchListerWatcher(slow) : slow;
  informer = newSharedIndexInformer<KubeObject>(lw, undefined, {
    clock,
    rand,
    name: `watch-rv0-churn/${s.approach}`,
    reflector: { useWatchList: s.approach === "watch-list", logger: { log: () => {} } },
    logger: { log: () => {} },
  });
  const rt = new StudyRuntime({
    clock,
    rand,
    workers: 1,
    cost: 0,
    sampleIntervalMs: s.sampleSeconds * 1000,
    sampleHeap: s.sampleHeap,
    requests: requestsByServedFrom(sim.accounting),
  });
  const count = () => rt.countEvent();
  informer.addEventHandler({ onAdd: count, onUpdate: count, onDelete: count });
  let writes = 0;
  // The churn's own stream, so its choices do not depend on how often the informer draws.
  const churnRand = seededRand(s.seed + 2);
  const churn = clock.newTicker(1000 / s.writesPerSecond, () => {
    const i = Math.floor(churnRand.float() * s.objects);
    writes++;
    // Through the registry, as a controller's update: the stored status is kept (the main resource cannot change it).
    sim.registry.update(pods, "default", pod(i, 0).metadata?.name ?? "", pod(i, writes), {
      userAgent: CHURN_USER_AGENT,
    });
  });
  if (fake !== undefined) await fake.step(s.warmupSeconds * 1000);
  else await clock.sleep(s.warmupSeconds * 1000);
  const writesBefore = writes;
  const ac = new AbortController();
  const t0 = clock.now();
  const running = informer.run(ac.signal);
  let syncedAt: number | null = null;
  const held: [number, number][] = [];
  const sampler = clock.newTicker(s.sampleSeconds * 1000, () => held.push([(clock.now() - t0) / 1000, initialHeld()]));
  held.push([0, 0]);
  let chanSize: number | null = null;
  const synced = () => {
    if (chanSize === null) chanSize = sim.caches.watchers(resource)[0]?.chanSize ?? null;
    if (syncedAt === null && initialHeld() >= s.objects) syncedAt = clock.now() - t0;
    return syncedAt !== null && !s.full;
  };
  try {
    // Virtual time: the runtime drives the FakeClock step by step; real time: it waits, checking `until` often.
    await rt.run({
      forMs: s.durationSeconds * 1000,
      stepMs: Math.min(500, s.sampleSeconds * 1000),
      until: synced,
      untilLabel: "the informer holding every initial object",
      activity: () => sim.currentResourceVersion + eventsRead,
    });
    synced();
  } finally {
    churn.stop();
    sampler.stop();
    await rt.stop();
    ac.abort();
    await running;
    await server.close();
    sim.stop();
  }
  const counts = informer.status().reflector?.counts;
  const lastRV = Number(informer.lastSyncResourceVersion());
  const sec = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : ms / 1000);
  return {
    cell: {
      approach: s.approach,
      objects: s.objects,
      writesPerSecond: s.writesPerSecond,
      consumerPerSecond: s.consumerPerSecond,
      syncedAtSeconds: sec(syncedAt),
      firstCloseAtSeconds: sec(closesAt[0] === undefined ? null : closesAt[0] - t0),
      initialReadAtFirstClose: firstEnd?.held ?? null,
      closes: closesAt.length,
      lists: counts?.lists ?? 0,
      watchLists: counts?.watchLists ?? 0,
      watches: counts?.watches ?? 0,
      eventsRead,
      writes: writes - writesBefore,
      heldAtEnd: initialHeld(),
      behindAtEnd: Number.isFinite(lastRV) && lastRV > 0 ? Math.max(0, sim.currentResourceVersion - lastRV) : -1,
      chanSize,
    },
    samples: rt.samples(),
    held,
  };
}

/** The largest write rate at which an approach synced and the smallest at which it did not, per objects × consumer. */
export interface FrontierPoint {
  readonly approach: WatchRv0Approach;
  readonly objects: number;
  readonly consumerPerSecond: number;
  /** Highest write rate of the sweep at which it synced (null: none). */
  readonly maxSyncedWritesPerSecond: number | null;
  /** Lowest write rate of the sweep at which it did not sync (null: it synced at every rate). */
  readonly minFailedWritesPerSecond: number | null;
}

/** Computes the frontier from sweep cells. */
export function frontierOf(cells: readonly WatchRv0Cell[]): FrontierPoint[] {
  const out: FrontierPoint[] = [];
  const groups = new Map<string, WatchRv0Cell[]>();
  for (const c of cells) {
    const k = `${c.approach}|${c.objects}|${c.consumerPerSecond}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (const g of groups.values()) {
    const first = g[0];
    if (first === undefined) continue;
    const ok = g.filter((c) => c.syncedAtSeconds !== null).map((c) => c.writesPerSecond);
    const bad = g.filter((c) => c.syncedAtSeconds === null).map((c) => c.writesPerSecond);
    out.push({
      approach: first.approach,
      objects: first.objects,
      consumerPerSecond: first.consumerPerSecond,
      maxSyncedWritesPerSecond: ok.length > 0 ? Math.max(...ok) : null,
      minFailedWritesPerSecond: bad.length > 0 ? Math.min(...bad) : null,
    });
  }
  return out;
}

/**
 * Runs study 002's RV "0" watch problem in virtual time. Detailed runs: each approach once at `objects` ×
 * `writesPerSecond` × `consumerPerSecond` for the whole duration, sampled (events read, objects held, requests).
 * Then the sweep: every approach at every combination, each until it syncs or the duration ends, giving the
 * frontier — the highest write rate at which each approach still syncs — and the dispatch budget's closes.
 */
export async function runWatchRv0Churn(options: WatchRv0ChurnOptions = {}): Promise<StudyReport> {
  const o = {
    objects: options.objects ?? 10_000,
    writesPerSecond: options.writesPerSecond ?? 50,
    consumerPerSecond: options.consumerPerSecond ?? 1200,
    durationSeconds: options.durationSeconds ?? 30,
    warmupSeconds: options.warmupSeconds ?? 80,
    sampleSeconds: options.sampleSeconds ?? 0.5,
    seed: options.seed ?? 1,
  };
  for (const [name, v, min] of [
    ["objects", o.objects, 1],
    ["writesPerSecond", o.writesPerSecond, 0.001],
    ["consumerPerSecond", o.consumerPerSecond, 0.001],
    ["durationSeconds", o.durationSeconds, 0.001],
    ["warmupSeconds", o.warmupSeconds, 0],
    ["sampleSeconds", o.sampleSeconds, 0.001],
  ] as const)
    if (!(v >= min) || !Number.isFinite(v)) throw new RangeError(`${name} must be a finite number ≥ ${min}, got ${v}`);
  const approaches = options.approaches ?? WATCH_RV0_APPROACHES;
  const sweep = options.sweep === undefined ? WATCH_RV0_DEFAULT_SWEEP : options.sweep;
  const realTime = options.realTime ?? false;
  const base = { ...o, sampleHeap: options.sampleHeap ?? false, realTime };
  const variants: VariantResult[] = [];
  const detailed: CellRun[] = [];
  for (const approach of approaches) {
    const r = await runCell({ ...base, approach, full: true });
    detailed.push(r);
    options.progress?.(`[${approach}] ${describeCell(r.cell)}`);
    const { approach: _, ...numbers } = r.cell;
    variants.push({ name: approach, samples: r.samples, waitBuckets: [], figures: numbers });
  }
  const cells: WatchRv0Cell[] = [];
  if (sweep !== false) {
    const total = sweep.objects.length * sweep.writesPerSecond.length * sweep.consumerPerSecond.length;
    let n = 0;
    for (const objects of sweep.objects)
      for (const consumerPerSecond of sweep.consumerPerSecond)
        for (const writesPerSecond of sweep.writesPerSecond) {
          n++;
          for (const approach of approaches) {
            const r = await runCell({
              ...base,
              objects,
              writesPerSecond,
              consumerPerSecond,
              approach,
              full: false,
              sampleHeap: false,
            });
            cells.push(r.cell);
          }
          options.progress?.(
            `sweep ${n}/${total}: ${objects} objects, ${writesPerSecond} writes/s, consumer ${consumerPerSecond}/s: ` +
              cells
                .slice(-approaches.length)
                .map((c) => `${c.approach} ${c.syncedAtSeconds === null ? "✗" : "✓"}`)
                .join(", "),
          );
        }
  }
  const frontier = frontierOf(cells);
  return {
    scenario: "watch-rv0-churn",
    title: 'An RV "0" watch never finishes its initial sync under churn; list-then-watch does',
    source:
      "shared/background/002: the watch cache closes a watcher that cannot take events for ~100 ms (dispatch budget " +
      '100 ms, +50 ms/s); an empty watch reads ~1,200 events/s, so at 50–500 writes/s an RV "0" watch over a big ' +
      "cluster is closed before its initial events end, and cannot resume",
    params: {
      ...o,
      realTime,
      approaches: approaches.join(","),
      ...(sweep !== false && {
        sweepObjects: sweep.objects.join(","),
        sweepWritesPerSecond: sweep.writesPerSecond.join(","),
        sweepConsumerPerSecond: sweep.consumerPerSecond.join(","),
      }),
    },
    description:
      `${o.objects} pods, ${o.writesPerSecond} updates/s, informer ingesting ${o.consumerPerSecond} objects/s, ` +
      `${o.durationSeconds} ${realTime ? "real s per run over HTTP (--real-time)" : "virtual s per run"}, ` +
      `${o.warmupSeconds} s of churn first, seed ${o.seed}` +
      (sweep === false
        ? ""
        : `; sweep of ${cells.length} runs (${sweep.objects.length} × ${sweep.writesPerSecond.length} × ${sweep.consumerPerSecond.length} × ${approaches.length} approaches)`),
    variants,
    summary: summarize(detailed, frontier, o),
    charts: charts(detailed, frontier),
    standardCharts: ["requests"],
    extra: { cells, frontier },
  };
}

function describeCell(c: WatchRv0Cell): string {
  const f = (x: number | null, d = 1) => (x === null ? "never" : `${x.toFixed(d)} s`);
  return (
    `${c.objects} objects, ${c.writesPerSecond} writes/s, consumer ${c.consumerPerSecond}/s: synced ${f(c.syncedAtSeconds)}, ` +
    `first close ${f(c.firstCloseAtSeconds)}${c.initialReadAtFirstClose === null ? "" : ` with ${c.initialReadAtFirstClose} of ${c.objects} read`}, ` +
    `${c.closes} close(s), ${c.lists} list(s), ${c.watchLists} watch-list(s), ${c.watches} watch(es), ${c.heldAtEnd} held at the end`
  );
}

/** The write-up's arithmetic: a 1000-event channel filled by `writesPerSecond` events/s. */
function fillTime(writesPerSecond: number): string {
  const s = 1000 / writesPerSecond;
  return `within ${s >= 10 ? s.toFixed(0) : s.toFixed(1)} s`;
}

function summarize(
  detailed: readonly CellRun[],
  frontier: readonly FrontierPoint[],
  o: { objects: number; writesPerSecond: number; consumerPerSecond: number },
): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const secs = (x: number | null) => (x === null ? "never" : `${x.toFixed(1)} s`);
  for (const { cell: c } of detailed) {
    const rv0 = c.approach === "rv0-watch";
    rows.push({
      variant: c.approach,
      metric: rv0
        ? `first closed by the dispatch budget (the ≤ 1000-event input channel fills in ${fillTime(o.writesPerSecond)} at ${o.writesPerSecond} writes/s)`
        : "first closed by the dispatch budget",
      writeUp: rv0 ? "002: 20 s at 50/s, 2 s at 500/s" : "—",
      measured:
        c.firstCloseAtSeconds === null
          ? "never"
          : `after ${secs(c.firstCloseAtSeconds)} (chanSize ${c.chanSize ?? "?"}; ${c.closes} close(s) in the run)`,
      figure: "measured",
    });
    if (rv0)
      rows.push({
        variant: c.approach,
        metric: "initial objects read when the stream ended",
        writeUp: "fewer than all: an empty watch reads ~1,200 events/s (002)",
        measured:
          c.initialReadAtFirstClose === null
            ? "— (not closed)"
            : `${c.initialReadAtFirstClose.toLocaleString("en")} of ${c.objects.toLocaleString("en")}`,
        figure: "measured",
      });
    rows.push({
      variant: c.approach,
      metric: "store holds every initial object",
      writeUp: rv0 ? "never (cannot resume)" : c.approach === "list-watch" ? "yes (LIST, then watch)" : "—",
      measured:
        c.syncedAtSeconds === null
          ? `never (${c.heldAtEnd.toLocaleString("en")} held at the end; ${c.watches} watch(es), ${c.lists} list(s))`
          : `after ${secs(c.syncedAtSeconds)}`,
      figure: "measured",
    });
  }
  for (const f of frontier)
    rows.push({
      variant: f.approach,
      metric: `frontier at ${f.objects} objects, consumer ${f.consumerPerSecond}/s`,
      writeUp:
        f.approach === "rv0-watch" && f.objects >= 10_000 && f.consumerPerSecond === 1200
          ? "fails at 50/s and 500/s (big clusters)"
          : "—",
      measured:
        `syncs up to ${f.maxSyncedWritesPerSecond === null ? "none" : `${f.maxSyncedWritesPerSecond}/s`}` +
        (f.minFailedWritesPerSecond === null ? "" : `, fails from ${f.minFailedWritesPerSecond}/s`),
      figure: "measured",
    });
  return rows;
}

function charts(detailed: readonly CellRun[], frontier: readonly FrontierPoint[]): ReportChart[] {
  const out: ReportChart[] = [
    {
      kind: "line",
      frame: {
        id: "objects-held",
        title: "Initial objects in the informer's store",
        xLabel: "virtual time (s)",
        yLabel: "objects",
      },
      series: detailed.map((r) => ({ name: r.cell.approach, points: r.held })),
    },
    {
      kind: "line",
      frame: {
        id: "events-read",
        title: "Events read by the informer per second",
        xLabel: "virtual time (s)",
        yLabel: "events/s",
      },
      series: detailed.map((r) => ({
        name: r.cell.approach,
        points: r.samples.map((s) => [s.t / 1000, s.eventsPerSecond] as const),
      })),
    },
  ];
  if (frontier.length > 0) {
    const keys = [...new Set(frontier.map((f) => `${f.approach} @ ${f.consumerPerSecond}/s`))];
    out.push({
      kind: "line",
      frame: {
        id: "frontier",
        title: "Frontier: write rates that sync (point) and fail (band top)",
        xLabel: "objects",
        yLabel: "writes/s (0: none)",
      },
      // Only grid points were measured: each is a band from the highest write rate that synced to the lowest that
      // failed (open upwards when none failed), never a line to the next grid point.
      series: keys.map((name) => {
        const points = frontier
          .filter((f) => `${f.approach} @ ${f.consumerPerSecond}/s` === name)
          .sort((a, b) => a.objects - b.objects);
        return {
          name,
          join: false,
          points: points.map((f) => [f.objects, f.maxSyncedWritesPerSecond ?? 0] as const),
          ranges: points.map((f) => [f.objects, f.maxSyncedWritesPerSecond ?? 0, f.minFailedWritesPerSecond] as const),
        };
      }),
    });
  }
  return out;
}
