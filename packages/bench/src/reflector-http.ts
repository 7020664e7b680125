// The reflector's initial sync and watch throughput over real HTTP against the simulated apiserver (the parent side;
// the clients run in children: reflector-http-child.ts).
import type { KubeObject } from "@informer-ts/apimachinery";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { type ChildResult, type ChildSpec, type HttpVariant, runReflectorChild } from "./reflector-http-child.js";
import { type BenchResult, type BenchRow, forceGc } from "./report.js";
import { configMapJson, envInt, MiB } from "./util.js";

/** Best (lowest) of each figure over the repetitions that succeeded; the first failure when none did. */
function best(runs: readonly ChildResult[]): ChildResult {
  const ok = runs.filter((r) => r.ok);
  if (ok.length === 0) return runs[0]!;
  const min = (f: (r: ChildResult) => number) => Math.min(...ok.map(f));
  const fastest = ok.reduce((a, b) => (b.ms < a.ms ? b : a));
  return {
    ...fastest,
    peakRss: min((r) => r.peakRss),
    startRss: min((r) => r.startRss),
    storeHeap: min((r) => r.storeHeap),
    serverCpuMs: min((r) => r.serverCpuMs ?? Number.NaN),
  };
}

const peakAbove = (r: ChildResult) => (r.peakRss - r.startRss) / MiB;

/**
 * The sync over real HTTP. One {@link SimApiServer} (engine, watch cache with history for every create, no
 * compaction) behind a {@link SimHttpServer} in this process, seeded once with N ConfigMaps (~1 KiB;
 * BENCH_REFLECTOR_HTTP_N, default 100k). Each client runs in its own child process, in rounds that alternate the
 * variants (BENCH_REFLECTOR_REPS rounds, default 3; best of each figure):
 * (a) the reflector with LIST, (b) with watch-list, (c) raw undici + `JSON.parse` of the same pages (the floor),
 * (d) `@kubernetes/client-node`'s `ListWatch`, (e) the reflector with a metadata-only LIST (`metadataListWatchFor`,
 * `PartialObjectMetadataList`, stored through `transformStripManagedFields`: what a metadata informer caches), compared
 * with (a), (f) the same keeping `managedFields` (the store before that default), compared with (e), and (g) the
 * same decoding the LIST whole (the strip only in the store: before `dropManagedFields`), compared with (e). Time is to "synced" (client-node: `start()` resolved); peak RSS is
 * the child's `maxRSS` above its RSS before the sync; the store heap is the heap still held after the sync and a
 * full GC. Watch throughput: the reflector's watch from RV 1 replaying the N ADDED events of the seed from the
 * watch cache, into its store, against raw NDJSON parsing of the same replay (after one discarded warm-up replay,
 * so both see the server's per-event line cache warm). The server shares the 2 cores with the client: every time
 * includes serving. Prints numbers; asserts nothing.
 */
export async function runReflectorHttp(): Promise<BenchResult> {
  const n = envInt("BENCH_REFLECTOR_HTTP_N", 100_000, 1);
  const reps = envInt("BENCH_REFLECTOR_REPS", 3, 1);
  const engine = new SimApiServer({
    historyLowerBound: n + 1024,
    historyUpperBound: n + 1024,
    compactionIntervalMs: 0,
    // The seed spreads objects over 100 namespaces that are never created: the bench measures list/watch, not the
    // namespace lifecycle (which would refuse them with 404 "namespaces … not found").
    namespaceLifecycle: false,
  });
  const firstRv = engine.currentResourceVersion;
  const seedStart = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const obj = JSON.parse(configMapJson(i, 0)) as KubeObject;
    delete obj.metadata?.resourceVersion;
    delete obj.metadata?.uid;
    await engine.create("configmaps", obj.metadata?.namespace ?? "default", obj);
  }
  const seedMs = Number(process.hrtime.bigint() - seedStart) / 1e6;
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  const spec = (variant: HttpVariant): ChildSpec => ({
    variant,
    url,
    watchFromRv: String(firstRv),
    watchEvents: n,
  });
  const runs = new Map<HttpVariant, ChildResult[]>();
  const record = async (variant: HttpVariant) => {
    forceGc();
    const cpu = process.cpuUsage();
    const child = await runReflectorChild(spec(variant));
    const used = process.cpuUsage(cpu);
    const r: ChildResult = { ...child, serverCpuMs: (used.user + used.system) / 1000 };
    const expected = n;
    if (r.ok && r.count !== expected) {
      runs.set(variant, [
        ...(runs.get(variant) ?? []),
        { ...r, ok: false, error: `got ${r.count} objects/events, expected ${expected}` },
      ]);
      return;
    }
    runs.set(variant, [...(runs.get(variant) ?? []), r]);
  };
  const started = process.hrtime.bigint();
  try {
    // Warm-up (discarded): the server's first LIST and first replay of the history are slower (JIT, the per-event
    // line cache of the watch encoder), and would otherwise penalize whichever variant runs first.
    await runReflectorChild(spec("floor-list"));
    await runReflectorChild(spec("floor-watch"));
    const order: HttpVariant[] = [
      "floor-list",
      "reflector-list",
      "reflector-watch-list",
      "client-node",
      "reflector-metadata-list",
      "reflector-metadata-list-whole",
      "reflector-metadata-list-keep",
    ];
    const watchOrder: HttpVariant[] = ["floor-watch", "reflector-watch"];
    for (let rep = 0; rep < reps; rep++) {
      for (const v of rep % 2 === 0 ? order : [...order].reverse()) await record(v);
      for (const v of rep % 2 === 0 ? watchOrder : [...watchOrder].reverse()) await record(v);
    }
  } finally {
    await server.close();
    engine.stop();
  }
  const totalS = Number(process.hrtime.bigint() - started) / 1e9;

  const get = (v: HttpVariant) => best(runs.get(v) ?? []);
  /** Every repetition's figure, to show the spread behind the best one. */
  const spread = (v: HttpVariant, f: (r: ChildResult) => number) =>
    (runs.get(v) ?? [])
      .filter((r) => r.ok)
      .map((r) => Math.round(f(r)))
      .join("/");
  const c = get("floor-list");
  const a = get("reflector-list");
  const b = get("reflector-watch-list");
  const d = get("client-node");
  const e = get("reflector-metadata-list");
  const f = get("reflector-metadata-list-keep");
  const g = get("reflector-metadata-list-whole");
  const fw = get("floor-watch");
  const rw = get("reflector-watch");
  const note = (r: ChildResult, extra?: string) =>
    [r.ok ? undefined : `FAILED: ${r.error}`, r.note, extra].filter((x) => x !== undefined).join("; ") || undefined;
  const withNote = (extra: string | undefined, row: BenchRow, r: ChildResult): BenchRow => {
    const text = note(r, extra);
    return text === undefined ? row : { ...row, note: text };
  };
  const goal = (text: string, met: boolean) => ({ goal: text, met });
  const syncRow = (label: string, r: ChildResult, cpu: boolean, g?: { goal: string; met: boolean }): BenchRow =>
    withNote(
      `runs ${spread(r.variant, (x) => (cpu ? x.cpuMs : x.ms))} ms${cpu ? "" : `; server CPU ${Math.round(r.serverCpuMs ?? Number.NaN)} ms`}`,
      {
        case: `${cpu ? "client CPU during" : "wall time of"} HTTP initial sync, ${label} — ${n} ConfigMaps`,
        value: cpu ? r.cpuMs : r.ms,
        unit: "ms",
        baseline: cpu ? c.cpuMs : c.ms,
        ratioLabel: "variant/floor",
        ratio: cpu ? r.cpuMs / c.cpuMs : r.ms / c.ms,
        ...g,
      },
      r,
    );
  const rssRow = (label: string, r: ChildResult): BenchRow => ({
    case: `peak RSS above start, ${label}`,
    value: peakAbove(r),
    unit: "MiB",
    baseline: peakAbove(c),
    ratioLabel: "variant/floor",
    ratio: peakAbove(r) / peakAbove(c),
    note: `peak ${Math.round(r.peakRss / MiB)} MiB from ${Math.round(r.startRss / MiB)} MiB; store heap ${Math.round(r.storeHeap / MiB)} MiB`,
  });
  const speedUp = (cpu: boolean): BenchRow => {
    const x = cpu ? d.cpuMs / a.cpuMs : d.ms / a.ms;
    return {
      case: `(a) reflector LIST vs (d) client-node, speed-up in ${cpu ? "client CPU" : "wall time"}`,
      value: x,
      unit: "×",
      baseline: 1,
      ratioLabel: "client-node/ours",
      ratio: x,
      ...goal("≥ 2×", x >= 2),
    };
  };
  const watchRow = (cpu: boolean): BenchRow => {
    const ours = n / ((cpu ? rw.cpuMs : rw.ms) / 1000);
    const raw = n / ((cpu ? fw.cpuMs : fw.ms) / 1000);
    return withNote(
      `${cpu ? "client CPU" : "wall"} runs ours ${spread("reflector-watch", (x) => (cpu ? x.cpuMs : x.ms))} ms, raw ${spread("floor-watch", (x) => (cpu ? x.cpuMs : x.ms))} ms${
        cpu
          ? ""
          : `; server CPU ours ${Math.round(rw.serverCpuMs ?? Number.NaN)} ms, raw ${Math.round(fw.serverCpuMs ?? Number.NaN)} ms`
      }`,
      {
        case: `watch throughput${cpu ? " per client CPU second" : ""}, ${n} events from the HTTP stream into the store`,
        value: ours,
        unit: cpu ? "events/CPU-s" : "events/s",
        baseline: raw,
        ratioLabel: "ours/raw NDJSON",
        ratio: ours / raw,
        ...goal("≥ 0.6× raw", ours >= 0.6 * raw),
      },
      rw,
    );
  };
  const bRatio = peakAbove(b) / (b.storeHeap / MiB);
  /** (e) against (a): how many times less the metadata-only sync costs than the full-object one. */
  const metadataRow = (what: "cpu" | "wall" | "rss" | "heap"): BenchRow => {
    const fig = (r: ChildResult) =>
      what === "cpu" ? r.cpuMs : what === "wall" ? r.ms : what === "rss" ? peakAbove(r) : r.storeHeap / n;
    const x = fig(a) / fig(e);
    const label = {
      cpu: "client CPU",
      wall: "wall time",
      rss: "peak RSS above start",
      heap: "retained heap per object",
    }[what];
    return withNote(
      what === "heap"
        ? `${Math.round(fig(e))} B/object metadata-only vs ${Math.round(fig(a))} B/object full`
        : `metadata-only ${fig(e).toFixed(0)} vs full ${fig(a).toFixed(0)} ${what === "rss" ? "MiB" : "ms"}`,
      {
        case: `(e) metadata-only LIST vs (a) full-object LIST, ${label} — ${n} ConfigMaps`,
        value: x,
        unit: "× less",
        baseline: 1,
        ratioLabel: "full/metadata-only",
        ratio: x,
        ...(what === "cpu" && goal("≥ 3×", x >= 3)),
        ...(what === "heap" && goal("≥ 4×", x >= 4)),
      },
      e,
    );
  };
  const rows: BenchRow[] = [
    syncRow("(c) floor: undici + JSON.parse", c, false),
    syncRow("(a) reflector, LIST", a, false, goal("≤ 1.3× floor", a.ms <= 1.3 * c.ms)),
    syncRow("(b) reflector, watch-list", b, false),
    syncRow("(d) client-node ListWatch", d, false),
    speedUp(false),
    syncRow("(c) floor: undici + JSON.parse", c, true),
    syncRow("(a) reflector, LIST", a, true, goal("≤ 1.3× floor", a.cpuMs <= 1.3 * c.cpuMs)),
    syncRow("(b) reflector, watch-list", b, true),
    syncRow("(d) client-node ListWatch", d, true),
    speedUp(true),
    rssRow("(c) floor", c),
    rssRow("(a) reflector, LIST", a),
    rssRow("(b) reflector, watch-list", b),
    rssRow("(d) client-node ListWatch", d),
    {
      case: "(b) watch-list: peak RSS above start / steady-state store heap",
      value: bRatio,
      unit: "×",
      ...goal("≤ 1.3×", bRatio <= 1.3),
      note: `${Math.round(peakAbove(b))} MiB / ${Math.round(b.storeHeap / MiB)} MiB; the raw NDJSON floor's own ratio: ${(peakAbove(fw) / (fw.storeHeap / MiB)).toFixed(2)}× (V8 young generation and page overhead)`,
    },
    watchRow(false),
    watchRow(true),
    syncRow("(e) reflector, metadata-only LIST", e, false),
    syncRow("(e) reflector, metadata-only LIST", e, true),
    rssRow("(e) reflector, metadata-only LIST", e),
    {
      case: "retained heap per cached object, (a) full-object LIST",
      value: a.storeHeap / n,
      unit: "B/object",
    },
    {
      case: "retained heap per cached object, (e) metadata-only LIST",
      value: e.storeHeap / n,
      unit: "B/object",
    },
    metadataRow("wall"),
    metadataRow("cpu"),
    metadataRow("rss"),
    metadataRow("heap"),
    {
      case: "retained heap per cached object, (f) metadata-only LIST keeping managedFields",
      value: f.storeHeap / n,
      unit: "B/object",
      baseline: e.storeHeap / n,
      ratioLabel: "kept/stripped",
      ratio: f.storeHeap / e.storeHeap,
      note: note(f, `client CPU kept ${Math.round(f.cpuMs)} ms vs stripped ${Math.round(e.cpuMs)} ms`),
    },
    withNote(
      `runs ${spread("reflector-metadata-list-whole", (x) => x.cpuMs)} ms; ${Math.round(g.storeHeap / n)} B/object retained`,
      {
        case: "(g) metadata-only LIST decoded whole, stripped in the store (before dropManagedFields): client CPU vs (e)",
        value: g.cpuMs,
        unit: "ms",
        baseline: e.cpuMs,
        ratioLabel: "whole/dropped",
        ratio: g.cpuMs / e.cpuMs,
      },
      g,
    ),
    {
      case: "(a) full-object LIST vs (g) metadata-only decoded whole, client CPU (the goal before dropManagedFields)",
      value: a.cpuMs / g.cpuMs,
      unit: "× less",
      baseline: 1,
      ratioLabel: "full/metadata-whole",
      ratio: a.cpuMs / g.cpuMs,
    },
  ];
  if (!fw.ok) rows.push({ case: "raw NDJSON watch floor", value: Number.NaN, unit: "", note: note(fw) ?? "" });
  return {
    name: "reflector-initial-sync-http",
    rows,
    meta: {
      node: process.version,
      objects: n,
      reps,
      seedSeconds: Math.round(seedMs / 100) / 10,
      runSeconds: Math.round(totalS),
      transport:
        "loopback HTTP/1.1, JSON, no gzip; sim-apiserver engine + HTTP face in the parent, each client in its own child",
      listPages: "RV=0 is served from the watch cache, which ignores limit: one page",
      timing: "best of reps; shared 2-core machine, noisy",
      clientNodeList: "listConfigMapForAllNamespaces({resourceVersion: '0'})",
      watchListEnd:
        "the server sends the initial-events-end bookmark on its ~1 s bookmark tick (as kube-apiserver): (b) pays up to ~1 s of waiting, visible at small N",
      serverCpu: "CPU of this process (the server) while the child ran, in the wall-time rows",
    },
  };
}
