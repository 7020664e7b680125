import { mkdirSync } from "node:fs";
import type { KubeObject } from "@informer-ts/apimachinery";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { type InformerChildResult, type InformerVariant, runInformerChild } from "./informer-child.js";
import { type BenchResult, type BenchRow, forceGc } from "./report.js";
import { configMapJson, envInt, MiB } from "./util.js";

const VARIANTS: readonly InformerVariant[] = [
  "client-node",
  "callback",
  "notifications-1",
  "notifications-4",
  "notifications-16",
  "watcher-reflect",
];

/** The same-run references: the raw floor and the bare reflector, on the same LIST and replay. */
const REFERENCES: readonly InformerVariant[] = ["floor", "reflector"];

const LABELS: Record<InformerVariant, string> = {
  "client-node": "(d) client-node makeInformer, 1 handler",
  callback: "(a) informer, 1 callback handler",
  "notifications-1": "(b) informer, 1 notifications$ subscriber",
  "notifications-4": "(b) informer, 4 notifications$ subscribers",
  "notifications-16": "(b) informer, 16 notifications$ subscribers",
  "watcher-reflect": "(c) watcher().pipe(reflect(store))",
  floor: "(f) raw floor: undici, JSON.parse of the LIST and of each NDJSON line, into a Map",
  reflector: "(r) Reflector into a store (no FIFO, processor or handlers)",
};

/** Lowest of each figure over the repetitions that succeeded (the noise of a shared machine only adds); else the first. */
function best<R extends { readonly ok: boolean }>(runs: readonly R[], figures: readonly (keyof R)[]): R {
  const ok = runs.filter((r) => r.ok);
  if (ok.length === 0) return runs[0]!;
  const out: Record<keyof R, unknown> = { ...ok[0]! };
  for (const f of figures) out[f] = Math.min(...ok.map((r) => r[f] as number));
  return out as R;
}

/**
 * Informer delivery benchmark (issue 9). One simulated apiserver (engine + HTTP face) in this process holds N
 * ConfigMaps (~1 KiB; BENCH_INFORMER_N, default 100k), each then updated once, before any client starts: the watch
 * cache holds the N updates as history. Each path runs in its own child process: an initial sync by one LIST at exactly
 * the seed's resource version (every path, client-node included, lists the same N objects in one page), then a watch
 * from that version, opened once the sync is measured, replays the N updates (MODIFIED) as fast as server and client
 * go, and the child waits until all N reached every consumer: (a) one callback handler, (b) 1, 4 and 16
 * `notifications$()` subscribers, (c) `watcher().pipe(reflect(store))`, (d) client-node 1.4's `makeInformer` (its
 * `ListWatch`) with one handler. Two references run the same LIST and replay in the same run: (f) the raw floor
 * (undici + `JSON.parse` of the LIST body and of each NDJSON line into a Map) and (r) the `Reflector` into a store.
 * BENCH_INFORMER_REPS rounds (default 2, alternating order; lowest of each figure). Reported: events/s end to end
 * (the server shares the 2 cores), events per client CPU-second of the events phase, peak RSS, retained heap per
 * cached object; each beside (d) and the floor. BENCH_INFORMER_CPU_PROF: a directory for a CPU profile of every
 * child's events phase (created when missing). Prints numbers; asserts nothing.
 */
export async function runInformer(): Promise<BenchResult> {
  const n = envInt("BENCH_INFORMER_N", 100_000, 1);
  const reps = envInt("BENCH_INFORMER_REPS", 2, 1);
  const profDir = process.env.BENCH_INFORMER_CPU_PROF;
  // Without this every variant failed with ENOENT when the directory did not exist yet.
  if (profDir) mkdirSync(profDir, { recursive: true });
  const engine = new SimApiServer({
    historyLowerBound: 2 * n + 1024,
    historyUpperBound: 2 * n + 1024,
    compactionIntervalMs: 0,
    namespaceLifecycle: false,
  });
  const stored: KubeObject[] = [];
  for (let i = 0; i < n; i++) {
    const obj = JSON.parse(configMapJson(i, 0)) as KubeObject;
    delete obj.metadata?.resourceVersion;
    delete obj.metadata?.uid;
    stored.push(await engine.create("configmaps", obj.metadata?.namespace ?? "default", obj));
  }
  const listRv = String(engine.currentResourceVersion);
  for (const o of stored) {
    const data = { ...(o.data as Record<string, string>), round: "1" };
    await engine.update("configmaps", o.metadata?.namespace ?? "", o.metadata?.name ?? "", { ...o, data });
  }
  stored.length = 0;
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  const runs = new Map<InformerVariant, InformerChildResult[]>();
  const started = process.hrtime.bigint();
  const order: InformerVariant[] = ["floor", ...VARIANTS, "reflector"];
  try {
    // Warm-up (discarded): the server's first replay of the history is slower (JIT, the per-event line cache of the
    // watch encoder) and would otherwise penalize whichever path runs first.
    await runInformerChild({ variant: "floor", url, listRv, n });
    for (let rep = 0; rep < reps; rep++) {
      for (const v of rep % 2 === 0 ? order : [...order].reverse()) {
        forceGc();
        const r = await runInformerChild({ variant: v, url, listRv, n, ...(profDir && { profDir }) });
        const checked = r.ok && r.cached !== n ? { ...r, ok: false, error: `cached ${r.cached}, expected ${n}` } : r;
        runs.set(v, [...(runs.get(v) ?? []), checked]);
      }
    }
  } finally {
    await server.close();
    engine.stop();
  }
  const totalS = Number(process.hrtime.bigint() - started) / 1e9;
  const result = (v: InformerVariant) =>
    best(runs.get(v) ?? [], ["syncMs", "eventsMs", "eventsCpuMs", "totalCpuMs", "peakRss", "startRss", "retainedHeap"]);
  const d = result("client-node");
  const cb = result("callback");
  const floor = result("floor");
  const rate = (ms: number) => n / (ms / 1000);
  const peak = (r: InformerChildResult) => (r.peakRss - r.startRss) / MiB;
  const perObject = (r: InformerChildResult) => r.retainedHeap / n;
  const fail = (r: { ok: boolean; error?: string }) => (r.ok ? undefined : `FAILED: ${r.error}`);
  const notes = (...parts: (string | undefined)[]) => parts.filter((p) => p !== undefined).join("; ");
  const rows: BenchRow[] = [];
  for (const v of VARIANTS) {
    const r = result(v);
    rows.push({
      case: `events/s end to end, ${LABELS[v]} — ${n} updates`,
      value: rate(r.eventsMs),
      unit: "events/s",
      baseline: rate(d.eventsMs),
      ratioLabel: "variant/client-node",
      ratio: d.eventsMs / r.eventsMs,
      note: notes(fail(r), `${(floor.eventsMs / r.eventsMs).toFixed(2)}× the raw NDJSON floor's events/s`),
    });
  }
  for (const v of VARIANTS) {
    const r = result(v);
    const rx = v.startsWith("notifications") || v === "watcher-reflect";
    const cpuVsCallback = r.eventsCpuMs / cb.eventsCpuMs;
    rows.push({
      case: `events per client CPU-second, ${LABELS[v]}`,
      value: rate(r.eventsCpuMs),
      unit: "events/CPU-s",
      baseline: rate(d.eventsCpuMs),
      ratioLabel: "variant/client-node",
      ratio: d.eventsCpuMs / r.eventsCpuMs,
      ...(v !== "client-node" && { goal: "≥ 1.3× client-node", met: r.eventsCpuMs * 1.3 <= d.eventsCpuMs }),
      note: notes(
        fail(r),
        `${(floor.eventsCpuMs / r.eventsCpuMs).toFixed(2)}× the raw NDJSON floor`,
        `events CPU ${Math.round(r.eventsCpuMs)} ms, sync ${Math.round(r.syncMs)} ms, total CPU ${Math.round(r.totalCpuMs)} ms`,
        rx
          ? `CPU ${cpuVsCallback.toFixed(2)}× the callback path (goal ≤ 1.10×: ${cpuVsCallback <= 1.1 ? "met" : "not met"})`
          : undefined,
      ),
    });
  }
  for (const v of REFERENCES) {
    const r = result(v);
    rows.push({
      case: `events per client CPU-second, ${LABELS[v]}`,
      value: rate(r.eventsCpuMs),
      unit: "events/CPU-s",
      baseline: rate(floor.eventsCpuMs),
      ratioLabel: "variant/raw floor",
      ratio: floor.eventsCpuMs / r.eventsCpuMs,
      note: notes(
        fail(r),
        `${(d.eventsCpuMs / r.eventsCpuMs).toFixed(2)}× client-node`,
        `${Math.round(rate(r.eventsMs))} events/s end to end (${(floor.eventsMs / r.eventsMs).toFixed(2)}× the floor)`,
        `events CPU ${Math.round(r.eventsCpuMs)} ms, sync ${Math.round(r.syncMs)} ms, total CPU ${Math.round(r.totalCpuMs)} ms`,
      ),
    });
  }
  for (const v of VARIANTS) {
    const r = result(v);
    rows.push({
      case: `peak RSS above start, ${LABELS[v]}`,
      value: peak(r),
      unit: "MiB",
      baseline: peak(d),
      ratioLabel: "variant/client-node",
      ratio: peak(r) / peak(d),
      note: `peak ${Math.round(r.peakRss / MiB)} MiB from ${Math.round(r.startRss / MiB)} MiB`,
    });
  }
  for (const v of VARIANTS) {
    const r = result(v);
    rows.push({
      case: `retained heap per cached object, ${LABELS[v]}`,
      value: perObject(r),
      unit: "B/object",
      baseline: perObject(d),
      ratioLabel: "variant/client-node",
      ratio: perObject(r) / perObject(d),
    });
  }
  return {
    name: "informer",
    rows,
    meta: {
      node: process.version,
      objects: n,
      reps,
      runSeconds: Math.round(totalS),
      transport:
        "loopback HTTP/1.1, JSON; sim-apiserver engine + HTTP face in the parent, each client in its own child",
      sync: "every path: one LIST with resourceVersion=<seed>&resourceVersionMatch=Exact, one page, N objects",
      events:
        "the watch from the seed's RV replays the N updates from the watch cache's history (written before any client" +
        " started), opened once the sync is measured; the server shares the 2 cores",
      order: `${order.join(", ")}; reversed every other round`,
      timing: "lowest of reps per figure; shared 2-core machine, noisy",
    },
  };
}
