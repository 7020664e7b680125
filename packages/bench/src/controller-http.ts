// The controller benchmark's over-HTTP part: the same no-op controller built on informer-ts (shared informer +
// Controller) and on @kubernetes/client-node 1.4 (`makeInformer` + a hand-written dedup queue and worker), each in its
// own child process, against one simulated apiserver (engine + HTTP face) in the parent.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@informer-ts/apimachinery";
import { newSharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { Controller, enqueueRequestForObject } from "@informer-ts/controller";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { HandWrittenQueue } from "./hand-written-queue.js";
import type { BenchRow } from "./report.js";
import { childNodeArgs, smallConfigMap } from "./util.js";

/** Which controller a child runs. */
export type HttpVariant = "informer-ts" | "client-node";

const VARIANTS: readonly HttpVariant[] = ["client-node", "informer-ts"];

const LABELS: Record<HttpVariant, string> = {
  "informer-ts": "informer-ts Controller on a shared informer",
  "client-node": "client-node makeInformer + hand-written queue",
};

interface ChildSpec {
  readonly variant: HttpVariant;
  readonly url: string;
  readonly pool: number;
}

/** Child → parent: `synced` once the initial reconciles are done, then `result` after the parent's `finish`. */
type ChildMessage = { readonly type: "synced" } | ({ readonly type: "result" } & ChildResult);
/** Parent → child: every write is done (the burst's last at `burstWritesEnd`, wall ms); report once reconciled. */
type ParentMessage = { readonly type: "finish"; readonly burstWritesEnd: number };

interface ChildResult {
  readonly variant: HttpVariant;
  readonly ok: boolean;
  readonly error?: string;
  /** Event-to-reconcile latencies (ms) per phase (`lat-1000`, `lat-10000`): write time → reconcile start. */
  readonly latencies: Record<string, { p50: number; p99: number; max: number; samples: number }>;
  /**
   * Keys of the burst phase reconciled, and ms from the first burst reconcile to the last: the burst is written while
   * no watch is open, so it is a backlog replayed from the watch cache, consumed as fast as the child can.
   */
  readonly burstReconciled: number;
  readonly burstMs: number;
  /** The child's CPU (user + system, ms) from the first burst reconcile to the last. */
  readonly burstCpuMs: number;
  /** Whether the first burst reconcile came before the parent's last burst write (the writes then paced it). */
  readonly burstOverlapped: boolean;
  /** Watch errors after the sync that stopped client-node's informer (it was restarted each time), and the first one. */
  readonly informerErrors: number;
  readonly firstInformerError?: string;
  /** Client CPU (user + system) from sync to the end, ms. */
  readonly cpuMs: number;
}

const CHILD_ENV = "INFORMER_BENCH_CONTROLLER_HTTP_CHILD";

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes on one machine. */
function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The p-th percentile (0–100) of sorted `xs`. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * What both children's no-op reconcile does with the object it read from its cache: the write time (`data.t`) and
 * phase (`data.phase`) the parent stamped give the event-to-reconcile latency (a version seen before is not counted
 * twice; modifications merged in the queue count from the latest one, the version the reconcile reads) and the
 * burst's progress.
 */
class Recorder {
  private readonly seen = new Map<string, string>();
  private readonly latencies = new Map<string, number[]>();
  private burstKeys = new Set<string>();
  private firstBurstReconcile = Number.NaN;
  private lastBurstReconcile = 0;
  private burstCpu0: NodeJS.CpuUsage | undefined;
  private burstCpu: NodeJS.CpuUsage | undefined;
  private onBurstDone: (() => void) | undefined;
  reconciles = 0;
  private informerErrors = 0;
  private firstInformerError: string | undefined;

  constructor(private readonly pool: number) {}

  reconciled(key: string, obj: KubeObject | undefined): void {
    const now = wallNow();
    this.reconciles++;
    const data = obj?.data as Record<string, string> | undefined;
    const t = data?.t;
    const phase = data?.phase;
    if (t === undefined || phase === undefined || this.seen.get(key) === t) return;
    if (phase !== "burst" && !phase.startsWith("lat-")) return;
    this.seen.set(key, t);
    const written = Number(t);
    if (phase === "burst") {
      if (this.burstKeys.size === 0) {
        this.firstBurstReconcile = now;
        this.burstCpu0 = process.cpuUsage();
      }
      this.lastBurstReconcile = now;
      this.burstKeys.add(key);
      if (this.burstKeys.size === this.pool) {
        this.burstCpu = process.cpuUsage(this.burstCpu0);
        this.onBurstDone?.();
      }
      return;
    }
    let xs = this.latencies.get(phase);
    if (xs === undefined) {
      xs = [];
      this.latencies.set(phase, xs);
    }
    xs.push(now - written);
  }

  /** Counts an error that stopped the informer (client-node's; the child restarts it). */
  informerError(err: unknown): void {
    this.informerErrors++;
    this.firstInformerError ??= err instanceof Error ? err.message : String(err);
  }

  /** Resolves once every key's burst version was reconciled, or after `limitMs`. */
  burstDone(limitMs: number): Promise<void> {
    if (this.burstKeys.size === this.pool) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      this.onBurstDone = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  result(burstWritesEnd: number): Omit<ChildResult, "variant" | "ok" | "cpuMs"> {
    const latencies: ChildResult["latencies"] = {};
    for (const [phase, xs] of this.latencies) {
      xs.sort((a, b) => a - b);
      latencies[phase] = { p50: percentile(xs, 50), p99: percentile(xs, 99), max: xs.at(-1)!, samples: xs.length };
    }
    return {
      latencies,
      burstReconciled: this.burstKeys.size,
      burstMs: this.burstKeys.size > 0 ? this.lastBurstReconcile - this.firstBurstReconcile : Number.NaN,
      burstCpuMs: this.burstCpu === undefined ? Number.NaN : (this.burstCpu.user + this.burstCpu.system) / 1000,
      burstOverlapped: this.firstBurstReconcile < burstWritesEnd,
      informerErrors: this.informerErrors,
      ...(this.firstInformerError !== undefined && { firstInformerError: this.firstInformerError }),
    };
  }
}

/** A controller under test: `start` resolves once synced, `stop` releases everything. */
interface ChildController {
  start(): Promise<void>;
  stop(): Promise<void>;
}

function informerTsController(spec: ChildSpec, rec: Recorder): ChildController {
  // Quiet, like the client-node child: the run's numbers are the output (a failure ends the run with its error).
  const client = new KubeClient({ server: spec.url }, { quiet: true });
  const informer = newSharedIndexInformer<KubeObject>(
    listWatchFor<KubeObject>(client, builtinResources.configmaps),
    { apiVersion: "v1", kind: "ConfigMap" },
    { name: "bench", reflector: { logger: silentLogger } },
  );
  const indexer = informer.getIndexer();
  const controller = new Controller({
    name: "bench-http",
    logger: silentLogger,
    watches: [{ informer, handler: enqueueRequestForObject() }],
    reconciler: (req) => {
      const key = `${req.namespace}/${req.name}`;
      rec.reconciled(key, indexer.getByKey(key));
    },
  });
  const stop = new AbortController();
  let informerRun: Promise<void> | undefined;
  let controllerRun: Promise<void> | undefined;
  return {
    async start() {
      informerRun = informer.run(stop.signal);
      controllerRun = controller.run(stop.signal);
      while (!informer.hasSynced()) await new Promise<void>((r) => setTimeout(r, 2));
    },
    async stop() {
      stop.abort();
      await controllerRun;
      await informerRun;
      await client.close();
    },
  };
}

async function clientNodeController(spec: ChildSpec, rec: Recorder): Promise<ChildController> {
  const k8s = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "sim", server: spec.url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "sim", cluster: "sim", user: "bench" }],
    currentContext: "sim",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, "/api/v1/configmaps", () =>
    api.listConfigMapForAllNamespaces({ resourceVersion: "0" }),
  );
  const queue = new HandWrittenQueue();
  const enqueue = (obj: { metadata?: { namespace?: string; name?: string } }) =>
    queue.add(`${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`);
  const errors: unknown[] = [];
  let started = false;
  let stopping = false;
  informer.on("add", enqueue);
  informer.on("update", enqueue);
  informer.on("delete", enqueue);
  // client-node's ListWatch stops for good on any watch error other than 410 (a watch answered 429 or 5xx, a
  // connection reset, a body that ends without its last chunk); its README's informer example restarts it from the
  // error handler. Without that, one such error under load left the child with no burst reconcile at all.
  informer.on("error", (e) => {
    errors.push(e);
    if (!started || stopping) return;
    rec.informerError(e);
    setTimeout(() => {
      if (!stopping) void informer.start();
    }, 10);
  });
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const slash = key.indexOf("/");
        const obj = informer.get(key.slice(slash + 1), key.slice(0, slash));
        await rec.reconciled(key, obj as KubeObject | undefined);
      } catch {
        // A no-op reconcile does not fail; a real one would requeue with a backoff here.
      } finally {
        queue.done(key);
      }
    }
  };
  let running: Promise<void> | undefined;
  return {
    async start() {
      await informer.start();
      if (errors.length > 0) throw new Error(`client-node informer: ${String(errors[0])}`);
      started = true;
      running = worker();
    },
    async stop() {
      stopping = true;
      queue.close();
      await running;
      await informer.stop();
    },
  };
}

async function childMain(spec: ChildSpec): Promise<ChildResult> {
  const rec = new Recorder(spec.pool);
  const c = spec.variant === "client-node" ? await clientNodeController(spec, rec) : informerTsController(spec, rec);
  await c.start();
  // The initial ADDED reconciles drain before the parent writes.
  while (rec.reconciles < spec.pool) await new Promise<void>((r) => setTimeout(r, 5));
  const cpu0 = process.cpuUsage();
  const finish = new Promise<number>((resolve) => {
    process.on("message", (m: ParentMessage) => {
      if (m.type === "finish") resolve(m.burstWritesEnd);
    });
  });
  process.send?.({ type: "synced" } satisfies ChildMessage);
  const burstWritesEnd = await finish;
  await rec.burstDone(30_000);
  const cpu = process.cpuUsage(cpu0);
  await c.stop();
  return { variant: spec.variant, ok: true, ...rec.result(burstWritesEnd), cpuMs: (cpu.user + cpu.system) / 1000 };
}

function failed(variant: HttpVariant, error: string): ChildResult {
  return {
    variant,
    ok: false,
    error,
    latencies: {},
    burstReconciled: 0,
    burstMs: Number.NaN,
    burstCpuMs: Number.NaN,
    burstOverlapped: false,
    informerErrors: 0,
    cpuMs: Number.NaN,
  };
}

/** Runs one variant in its own child; `write` (the parent's phases) runs once the child reports `synced`. */
function runChild(spec: ChildSpec, write: () => Promise<number>): Promise<ChildResult> {
  const profDir = process.env.BENCH_CONTROLLER_CPU_PROF;
  const child = spawn(process.execPath, [...childNodeArgs(profDir, spec.variant), fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(spec) },
  });
  return new Promise<ChildResult>((resolve) => {
    let result: ChildResult | undefined;
    let writing: Promise<void> | undefined;
    const limit = setTimeout(() => {
      result ??= failed(spec.variant, "no result within 10 minutes");
      child.kill();
    }, 600_000);
    child.on("message", (m: ChildMessage) => {
      if (m.type === "synced") {
        writing = write().then(
          (burstWritesEnd) => {
            child.send({ type: "finish", burstWritesEnd } satisfies ParentMessage);
          },
          (err: unknown) => {
            result = failed(spec.variant, `writes failed: ${err instanceof Error ? err.message : String(err)}`);
            child.kill();
          },
        );
      } else {
        const { type: _, ...r } = m;
        result ??= r;
      }
    });
    child.on("error", (err) => resolve(failed(spec.variant, `cannot start the child: ${err.message}`)));
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
      void (writing ?? Promise.resolve()).then(() =>
        resolve(result ?? failed(spec.variant, `the child exited (${signal ?? `code ${code}`}) without a result`)),
      );
    });
  });
}

/** The median of `xs` (NaN when empty). */
function median(xs: readonly number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The no-op controller over HTTP, informer-ts beside client-node 1.4 (issues 12 and 22): one simulated apiserver in this
 * process holds `pool` ConfigMaps; each controller runs in its own child (one worker, the reconcile reads the object
 * from its cache). After the initial reconciles, this process modifies the ConfigMaps round-robin at each of `rates`
 * events/s for `seconds` (event-to-reconcile latency, from the write to the reconcile start, wall clock shared by the
 * processes), then writes the burst: every ConfigMap updated once while no watch is open (the open watches are
 * closed cleanly and new ones are held by a latency rule on `watch` until the writes are done), so both informers
 * resume their watch from their last resourceVersion and get the 5,000 events as a backlog from the watch cache.
 * The burst figure is then the child's own pace: keys reconciled per second from its first burst reconcile to its
 * last, beside the child's CPU per reconcile over that interval. A row's note says when the writes outlasted the
 * hold (the figure is then paced by them). `rounds` rounds run both children, alternating which goes first; every
 * figure is the median over the rounds. Returns the rows; asserts nothing.
 */
export async function controllerOverHttp(
  pool: number,
  rates: readonly number[],
  seconds: number,
  rounds = 3,
): Promise<{ rows: BenchRow[]; meta: Record<string, string | number> }> {
  const engine = new SimApiServer({ compactionIntervalMs: 0, namespaceLifecycle: false });
  const stored: KubeObject[] = [];
  for (let i = 0; i < pool; i++) {
    const o = smallConfigMap(`cm-${i}`, `ns-${i % 10}`, i);
    stored.push(await engine.create("configmaps", o.metadata?.namespace ?? "", o));
  }
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  const update = async (i: number, phase: string): Promise<void> => {
    const o = stored[i]!;
    const data = { ...(o.data as Record<string, string>), phase, t: String(wallNow()) };
    stored[i] = await engine.update("configmaps", o.metadata?.namespace ?? "", o.metadata?.name ?? "", { ...o, data });
  };
  const writeAll = async (phase: string): Promise<void> => {
    for (let i = 0; i < pool; i++) {
      await update(i, phase);
      if (i % 256 === 255) await new Promise<void>((r) => setImmediate(r));
    }
  };
  /** How long new watches are held during the burst's writes: 3× the last reset's `pool` writes, at least 2 s. */
  let holdMs = 1000;
  const write = async (): Promise<number> => {
    for (const rate of rates) {
      const total = Math.round(rate * seconds);
      const start = performance.now();
      let sent = 0;
      while (sent < total) {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
        for (; sent < due; sent++) await update(sent % pool, `lat-${rate}`);
        await new Promise<void>((r) => setTimeout(r, 1));
      }
      // Let the last reconciles of this rate happen before the next phase.
      await new Promise<void>((r) => setTimeout(r, 500));
    }
    const release = engine.faults.latency({ ms: holdMs, verbs: ["watch"], resource: "configmaps" });
    engine.faults.dropWatches();
    const burstStart = wallNow();
    const cpu0 = process.cpuUsage();
    await writeAll("burst");
    const cpu = process.cpuUsage(cpu0);
    release();
    const end = wallNow();
    burstWrites = { ms: end - burstStart, cpuMs: (cpu.user + cpu.system) / 1000 };
    return end;
  };
  /** The simulator's side of the last burst: wall ms from its first to its last write, and this process's CPU. */
  let burstWrites = { ms: Number.NaN, cpuMs: Number.NaN };
  const runs = new Map<HttpVariant, { result: ChildResult; writes: { ms: number; cpuMs: number } }[]>(
    VARIANTS.map((v) => [v, []]),
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const variant of order) {
        // Every child starts from objects in the same (non-measured) phase.
        const t0 = performance.now();
        await writeAll("reset");
        holdMs = Math.max(2000, 3 * (performance.now() - t0));
        const result = await runChild({ variant, url, pool }, write);
        runs.get(variant)!.push({ result, writes: burstWrites });
      }
    }
  } finally {
    await server.close();
    engine.stop();
  }
  const fail = (v: HttpVariant) => {
    const bad = runs.get(v)!.find((r) => !r.result.ok);
    return bad === undefined ? undefined : `FAILED: ${bad.result.error}`;
  };
  const of = (v: HttpVariant, f: (r: ChildResult) => number) => median(runs.get(v)!.map((r) => f(r.result)));
  const rows: BenchRow[] = [];
  for (const rate of rates) {
    for (const p of ["p50", "p99"] as const) {
      const pick = (r: ChildResult) => r.latencies[`lat-${rate}`]?.[p] ?? Number.NaN;
      const base = of("client-node", pick);
      for (const v of VARIANTS) {
        const value = of(v, pick);
        rows.push({
          case: `over HTTP: event-to-reconcile latency ${p} at ${rate} events/s, ${LABELS[v]}`,
          value,
          unit: "ms",
          ...(v !== "client-node" && {
            baseline: base,
            ratioLabel: "informer-ts/client-node",
            ratio: value / base,
          }),
          ...(p === "p99" && rate === 1000 && { goal: "< 10 ms", met: value < 10 }),
          note:
            fail(v) ??
            (p === "p50"
              ? `median of ${rounds} rounds; ${Math.round(of(v, (r) => r.latencies[`lat-${rate}`]?.samples ?? Number.NaN))} samples, ` +
                `max ${of(v, (r) => r.latencies[`lat-${rate}`]?.max ?? Number.NaN).toFixed(1)} ms`
              : undefined),
        });
      }
    }
  }
  const rate = (r: ChildResult) => (r.burstReconciled / r.burstMs) * 1000;
  const cpuPer = (r: ChildResult) => (r.burstCpuMs / r.burstReconciled) * 1000;
  /** The burst's median rate over the rounds whose writes ended before the watch resumed (all, if none did). */
  const burstRate = (v: HttpVariant) => {
    const rs = runs.get(v)!;
    const clean = rs.filter((r) => !r.result.burstOverlapped);
    return median((clean.length > 0 ? clean : rs).map((r) => rate(r.result)));
  };
  const baseRate = burstRate("client-node");
  /** The informer restarts of a variant's rounds, with the first error, for the note ("" when none). */
  const restarts = (rs: readonly ChildResult[]) => {
    const n = rs.reduce((sum, r) => sum + r.informerErrors, 0);
    const first = rs.find((r) => r.firstInformerError !== undefined)?.firstInformerError;
    return n === 0 ? "" : `; the informer stopped on a watch error ${n} time(s) and was restarted (first: ${first})`;
  };
  for (const v of VARIANTS) {
    const rs = runs.get(v)!;
    const overlapped = rs.filter((r) => r.result.burstOverlapped).length;
    const value = burstRate(v);
    rows.push({
      case: `over HTTP: backlog burst of ${pool} updates, reconciles per second, ${LABELS[v]}`,
      value,
      unit: "reconciles/s",
      ...(v !== "client-node" && {
        baseline: baseRate,
        ratioLabel: "informer-ts/client-node",
        ratio: value / baseRate,
        goal: "≥ 1.2× client-node",
        met: value / baseRate >= 1.2,
      }),
      note:
        fail(v) ??
        `median of ${overlapped < rounds ? rounds - overlapped : rounds} rounds ` +
          `(all: ${rs.map((r) => Math.round(rate(r.result))).join(", ")}); ` +
          `${of(v, (r) => r.burstReconciled)}/${pool} keys in ${Math.round(of(v, (r) => r.burstMs))} ms; ` +
          `child CPU ${of(v, cpuPer).toFixed(1)} µs per reconcile (${Math.round(of(v, (r) => r.burstCpuMs))} ms); ` +
          `the simulator's writes took ${Math.round(median(rs.map((r) => r.writes.ms)))} ms before the watch resumed` +
          (overlapped > 0 ? `; ${overlapped} round(s) left out: the writes outlasted the hold (paced by them)` : "") +
          restarts(rs.map((r) => r.result)),
    });
  }
  for (const v of VARIANTS) {
    const value = of(v, cpuPer);
    const base = of("client-node", cpuPer);
    rows.push({
      case: `over HTTP: backlog burst, child CPU per reconcile, ${LABELS[v]}`,
      value,
      unit: "µs",
      ...(v !== "client-node" && { baseline: base, ratioLabel: "informer-ts/client-node", ratio: value / base }),
      note:
        fail(v) ??
        `median of ${rounds} rounds; user + system CPU of the child from its first burst reconcile to its last`,
    });
  }
  return {
    rows,
    meta: {
      http: `loopback HTTP/1.1, JSON; sim-apiserver in the parent, each controller in its own child (1 worker); ${rounds} rounds, order alternating; ${pool} ConfigMaps; the burst is a backlog replayed from the watch cache`,
    },
  };
}

// Child-process entry: `node controller-http.js` with the spec in INFORMER_BENCH_CONTROLLER_HTTP_CHILD.
if (process.env[CHILD_ENV] !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.env[CHILD_ENV]) as ChildSpec;
  let result: ChildResult;
  try {
    result = await childMain(spec);
  } catch (err) {
    result = failed(spec.variant, err instanceof Error ? err.message : String(err));
  }
  process.send?.({ type: "result", ...result } satisfies ChildMessage, () => process.exit(0));
}
