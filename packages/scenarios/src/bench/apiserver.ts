import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { ListOptions } from "@informer-ts/apimachinery";
import {
  EngineBackend,
  type RequestContext,
  SimApiServer,
  SimHttpServer,
  type SimWatch,
} from "@informer-ts/sim-apiserver";
import type { ClientReplyMsg, ClientRequestMsg, ListOutcome } from "./apiserver-client.js";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";
import { envInt, KiB, MiB, smallConfigMap } from "./util.js";

// ---------------------------------------------------------------------------------------------------------------
// Sizes. Every one can be lowered (or raised) through the environment for quick runs, e.g.
//   BENCH_APISERVER_WATCHES=2000 BENCH_APISERVER_MAX_WATCHES=4000 BENCH_APISERVER_LIST=10000 \
//   node --expose-gc packages/scenarios/dist/bench/main.js apiserver

/** Reads the sizes from the environment (an invalid value is an error naming the variable). */
const readSizes = () => ({
  /** Idle HTTP watches held for the first heap figure (and the bare node:http baseline). */
  watches: envInt("BENCH_APISERVER_WATCHES", 10_000),
  /** Cap of the "as many as the machine allows" ramp (it also stops below the fd limit, or on errors). */
  maxWatches: envInt("BENCH_APISERVER_MAX_WATCHES", 50_000),
  /** Watches added per ramp step. */
  rampStep: envInt("BENCH_APISERVER_RAMP_STEP", 5_000),
  /** Idle in-process watches for the engine-only heap figure. */
  inProcessWatches: envInt("BENCH_APISERVER_INPROCESS_WATCHES", 10_000),
  /** Objects in the initial list of the RV=0 watches whose heap is measured after that list was consumed. */
  initialObjects: envInt("BENCH_APISERVER_INITIAL_OBJECTS", 10_000),
  /** RV=0 watches held for that figure. */
  initialWatches: envInt("BENCH_APISERVER_INITIAL_WATCHES", 200),
  /** Watchers of the delivery-throughput runs. */
  watchers: envInt("BENCH_APISERVER_WATCHERS", 1_000),
  /** Writes of the in-process throughput run (each is one event per watcher). */
  writes: envInt("BENCH_APISERVER_WRITES", 2_000),
  /** Writes of the HTTP throughput run. */
  httpWrites: envInt("BENCH_APISERVER_HTTP_WRITES", 1_000),
  /** Objects listed. */
  listObjects: envInt("BENCH_APISERVER_LIST", 100_000),
  /** Page size of the paginated (legacy exact) list. */
  pageSize: envInt("BENCH_APISERVER_PAGE", 500, 1),
  /** Timed repetitions (best one reported) after one warm-up. */
  reps: envInt("BENCH_APISERVER_REPS", 3, 1),
});

/** The sizes of this run, read when {@link runApiserver} starts. */
let SIZES: ReturnType<typeof readSizes>;

/** File descriptors a process keeps for itself beyond its sockets (stdio, epoll, IPC, pipes, the bench files). */
const FD_RESERVE = 256;

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `cond` (every `everyMs`, or every event-loop turn when 0) until it holds or `timeoutMs` passed. */
async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const start = performance.now();
  while (!(await cond())) {
    if (performance.now() - start > timeoutMs) return false;
    await (everyMs === 0 ? tick() : sleep(everyMs));
  }
  return true;
}

/** The soft RLIMIT_NOFILE of this process (Linux `/proc/self/limits`); undefined where it cannot be read. */
function fdLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    const n = Number(soft);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: a child process (apiserver-client.ts) opens raw HTTP watches and counts the lines it receives, and
// runs LISTs. Keeping it out of this process keeps its sockets and buffers out of the heap being measured, and its
// CPU out of this event loop (both processes still share the machine's cores).

const CLIENT_JS = fileURLToPath(new URL("./apiserver-client.js", import.meta.url));

type Reply<C extends ClientReplyMsg["cmd"]> = Extract<ClientReplyMsg, { cmd: C }>;

/** The watching/listing client process. Requests are answered in order, one reply per request. */
class Client {
  private readonly child: ChildProcess;
  private readonly waiting: Array<{ cmd: string; resolve: (m: ClientReplyMsg | undefined) => void }> = [];
  private readonly readyP: Promise<unknown>;
  private failure: string | undefined;

  constructor() {
    this.child = spawn(process.execPath, [CLIENT_JS], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.readyP = this.expect("ready");
    this.child.on("message", (m: ClientReplyMsg) => {
      const i = this.waiting.findIndex((w) => w.cmd === m.cmd);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    // A client that dies (or cannot start) answers every pending and later request with an error instead of
    // leaving the benchmark waiting forever.
    const gone = (why: string) => {
      this.failure ??= `client process ${why}`;
      for (const w of this.waiting.splice(0)) w.resolve(undefined);
    };
    this.child.on("exit", (code, signal) => gone(`exited (${signal ?? code})`));
    this.child.on("error", (err) => gone(`failed: ${err.message}`));
  }

  /** The reply, or undefined once the child is gone (see `failure`). */
  private expect<C extends ClientReplyMsg["cmd"]>(reply: C): Promise<Reply<C> | undefined> {
    if (this.failure !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) =>
      this.waiting.push({ cmd: reply, resolve: (m) => resolve(m as Reply<C> | undefined) }),
    );
  }

  private ask<C extends ClientReplyMsg["cmd"]>(msg: ClientRequestMsg, reply: C): Promise<Reply<C> | undefined> {
    const p = this.expect(reply);
    if (this.failure === undefined) this.child.send(msg);
    return p;
  }

  private get gone(): Record<string, number> {
    return { [this.failure ?? "client process gone"]: 1 };
  }

  ready(): Promise<unknown> {
    return this.readyP;
  }
  /** Opens `count` more watches (`concurrency` connects in flight), spread over `localAddresses` source IPs. */
  async open(url: string, count: number, localAddresses = 1, concurrency = 200): Promise<Reply<"opened">> {
    const r = await this.ask({ cmd: "open", url, count, concurrency, localAddresses }, "opened");
    return r ?? { cmd: "opened", opened: 0, failures: 1, live: 0, errors: this.gone };
  }
  async count(): Promise<Reply<"count">> {
    return (
      (await this.ask({ cmd: "count" }, "count")) ?? {
        cmd: "count",
        events: 0,
        live: 0,
        failures: 1,
        errors: this.gone,
      }
    );
  }
  async list(url: string, pageSize = 0): Promise<ListOutcome> {
    const r = await this.ask({ cmd: "list", url, pageSize }, "list");
    return r?.result ?? { error: this.failure ?? "client process gone" };
  }
  async close(): Promise<void> {
    await this.ask({ cmd: "close" }, "closed");
  }
  exit(): void {
    if (this.failure === undefined) this.child.send({ cmd: "exit" } satisfies ClientRequestMsg);
  }
}

/** The naive baseline: a bare node:http server holding each request open as a chunked 200 (no engine, no encoding). */
async function bareServer(): Promise<{ url: string; open: () => number; close: () => Promise<void> }> {
  const held = new Set<ServerResponse>();
  const srv = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.flushHeaders();
    held.add(res);
    res.on("close", () => held.delete(res));
  });
  srv.requestTimeout = 0;
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    open: () => held.size,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy();
        srv.close(() => r());
      }),
  };
}

/** An engine with real time and no background compaction, plus its HTTP face on a free loopback port. */
async function startSim(): Promise<{
  engine: SimApiServer;
  server: SimHttpServer;
  url: string;
  stop(): Promise<void>;
}> {
  const engine = new SimApiServer({ compactionIntervalMs: 0 });
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  return {
    engine,
    server,
    url,
    async stop() {
      await server.close();
      engine.stop();
    },
  };
}

const NS = "default";
const WATCH_PATH = `/api/v1/namespaces/${NS}/configmaps`;

// ---------------------------------------------------------------------------------------------------------------
// 1. Idle watches held: heap per watch, in-process and over HTTP, then a ramp to as many as the machine allows.

interface HeldResult {
  readonly rows: BenchRow[];
  readonly meta: Record<string, string | number | boolean>;
}

async function heldWatches(): Promise<HeldResult> {
  const rows: BenchRow[] = [];
  const meta: Record<string, string | number | boolean> = {};
  const n = SIZES.watches;

  // Engine only: idle in-process watches (CacheWatcher + its deadline timer).
  {
    const engine = new SimApiServer({ compactionIntervalMs: 0 });
    const rv = String(engine.currentResourceVersion);
    const m = SIZES.inProcessWatches;
    const h0 = heapUsed();
    const watches: SimWatch[] = [];
    for (let i = 0; i < m; i++) {
      watches.push(await engine.watch("configmaps", NS, { resourceVersion: rv, allowWatchBookmarks: true }));
    }
    const per = (heapUsed() - h0) / m;
    rows.push({
      case: `heap per idle in-process watch (${fmtInt(m)} held, engine only)`,
      value: per,
      unit: "B/watch",
      goal: "≤ 4 KiB",
      met: per <= 4 * KiB,
    });
    for (const w of watches) w.stop();
    engine.stop();
  }

  // RV=0 watches after their initial list was consumed: what a watch keeps of the snapshot it was started with.
  if (SIZES.initialObjects > 0 && SIZES.initialWatches > 0) {
    const engine = new SimApiServer({ compactionIntervalMs: 0 });
    for (let i = 0; i < SIZES.initialObjects; i++) {
      await engine.create("configmaps", NS, smallConfigMap(`config-${i}`, NS, i));
    }
    const consumed = async (): Promise<SimWatch> => {
      const w = await engine.watch("configmaps", NS, { resourceVersion: "0" });
      for (let i = 0; i < SIZES.initialObjects; i++) await w.next();
      return w;
    };
    const warm = await consumed(); // compiles the code paths before the heap baseline
    const h0 = heapUsed();
    const watches: SimWatch[] = [];
    for (let i = 0; i < SIZES.initialWatches; i++) watches.push(await consumed());
    const per = (heapUsed() - h0) / SIZES.initialWatches;
    rows.push({
      case: `heap per in-process RV=0 watch after its ${fmtInt(SIZES.initialObjects)}-object initial list (${fmtInt(SIZES.initialWatches)} held)`,
      value: per,
      unit: "B/watch",
      goal: "≤ 4 KiB",
      met: per <= 4 * KiB,
      note: `a watch that kept its snapshot would hold ≥ ${fmtInt(8 * SIZES.initialObjects)} B more`,
    });
    for (const w of [warm, ...watches]) w.stop();
    engine.stop();
  }

  // Baseline: a bare node:http server holding the same number of chunked responses, same client.
  const bare = await bareServer();
  const bc = new Client();
  await bc.ready();
  const b0 = heapUsed();
  await bc.open(bare.url, n);
  const bareOk = await until(() => bare.open() >= n, 60_000);
  const bPer = (heapUsed() - b0) / n;
  await bc.close();
  await until(() => bare.open() === 0, 30_000);
  bc.exit();
  await bare.close();

  // The simulated apiserver: N idle watches (RV = now, bookmarks on, as an informer asks), then more.
  const sim = await startSim();
  const { engine, server } = sim;
  const rv = engine.currentResourceVersion;
  const url = `${sim.url}${WATCH_PATH}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`;
  const client = new Client();
  await client.ready();
  const h0 = heapUsed();
  let t0 = process.hrtime.bigint();
  const first = await client.open(url, n);
  const ok = await until(() => server.stats.openWatches >= n, 60_000);
  const openMs = elapsedMs(t0);
  const per = (heapUsed() - h0) / n;
  rows.push({
    case: `heap per idle HTTP watch (${fmtInt(n)} held, server process)`,
    value: per,
    unit: "B/watch",
    baseline: bareOk ? bPer : undefined,
    ratioLabel: "ours/bare node:http",
    ratio: bareOk ? per / bPer : undefined,
    goal: "≤ 4 KiB",
    met: ok && per <= 4 * KiB,
    note: ok
      ? `opened in ${(openMs / 1000).toFixed(1)} s`
      : `only ${server.stats.openWatches} opened (${first.failures} failures: ${JSON.stringify(first.errors)})`,
  });

  // Ramp: add watches in steps until the cap, the fd limit (server and client each hold one socket per watch) or
  // the first failures.
  const limit = fdLimit();
  const fdBound = limit === undefined ? Number.POSITIVE_INFINITY : limit - FD_RESERVE;
  const target = Math.min(SIZES.maxWatches, fdBound);
  let stopReason =
    target === SIZES.maxWatches
      ? `cap BENCH_APISERVER_MAX_WATCHES=${SIZES.maxWatches}`
      : `fd limit: RLIMIT_NOFILE=${limit} per process, minus ${FD_RESERVE} kept for other files`;
  t0 = process.hrtime.bigint();
  let held = server.stats.openWatches;
  while (ok && held < target && SIZES.rampStep > 0) {
    const step = Math.min(SIZES.rampStep, target - held);
    // Loopback allows ~28k connections per (source IP, destination) pair: spread the sockets over source IPs.
    const localAddresses = held + step > 25_000 ? 8 : 1;
    const r = await client.open(url, step, localAddresses);
    await until(() => server.stats.openWatches >= held + step, 30_000);
    const now = server.stats.openWatches;
    if (r.failures > 0 || now < held + step) {
      stopReason = `errors at ${fmtInt(now)}: ${r.failures} failed opens ${JSON.stringify(r.errors)}`;
      held = now;
      break;
    }
    held = now;
    if (elapsedMs(t0) > 120_000) {
      stopReason = "time budget of the ramp (120 s)";
      break;
    }
  }
  if (held > n) {
    const perMax = (heapUsed() - h0) / held;
    rows.push({
      case: `heap per idle HTTP watch (${fmtInt(held)} held: as many as the machine allows)`,
      value: perMax,
      unit: "B/watch",
      goal: "≤ 4 KiB",
      met: perMax <= 4 * KiB,
      note: `stopped by ${stopReason}; ramp from ${fmtInt(n)} took ${(elapsedMs(t0) / 1000).toFixed(1)} s`,
    });
  }
  meta.maxWatchesHeld = held;
  meta.maxWatchesStoppedBy = stopReason;
  meta.rlimitNofile = limit ?? "unknown";
  meta.watchConnections = sim.server.connections;
  await client.close();
  await until(() => server.stats.openWatches === 0, 60_000);
  client.exit();
  await sim.stop();
  return { rows, meta };
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Event delivery throughput to N watchers: in-process (two consumer styles) and over HTTP.

type Consumer = (w: SimWatch, count: () => void) => void;

/** The usual consumer: `for await` over the watch. */
const forAwaitConsumer: Consumer = (w, count) => {
  void (async () => {
    for await (const _event of w) count();
  })();
};

/** The cheapest consumer the engine offers: `next()` with a `then` callback, no async frame per watcher. */
const thenConsumer: Consumer = (w, count) => {
  const onResult = (r: IteratorResult<unknown>): void => {
    if (r.done === true) return;
    count();
    w.next().then(onResult, () => {});
  };
  w.next().then(onResult, () => {});
};

async function inProcessThroughput(
  consumer: Consumer,
  writes = SIZES.writes,
): Promise<{ perSec: number; note: string }> {
  const engine = new SimApiServer({ compactionIntervalMs: 0 });
  await engine.create("configmaps", NS, smallConfigMap("hot", NS, 0));
  const rv = String(engine.currentResourceVersion);
  const watchers = SIZES.watchers;
  const watches: SimWatch[] = [];
  let delivered = 0;
  const count = () => {
    delivered++;
  };
  for (let i = 0; i < watchers; i++) {
    const w = await engine.watch("configmaps", NS, { resourceVersion: rv });
    watches.push(w);
    consumer(w, count);
  }
  const objects = Array.from({ length: writes }, (_, i) => smallConfigMap("hot", NS, i + 1));
  forceGc();
  const expected = watchers * writes;
  const start = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) {
    await engine.update("configmaps", NS, "hot", objects[i]!);
    // Let timers and I/O run now and then (the dispatcher's budget timer is a real timer).
    if (i % 100 === 99) await tick();
  }
  const complete = await until(() => delivered >= expected, 60_000, 0);
  const ms = elapsedMs(start);
  const terminated = engine.cacher("configmaps").terminatedWatchers;
  for (const w of watches) w.stop();
  engine.stop();
  return {
    perSec: delivered / (ms / 1000),
    note:
      `${fmtInt(delivered)} of ${fmtInt(expected)} in ${(ms / 1000).toFixed(2)} s` +
      (complete ? "" : " (incomplete)") +
      (terminated > 0 ? `, ${terminated} watchers closed as unresponsive` : ""),
  };
}

async function httpThroughput(): Promise<{ perSec: number; note: string }> {
  const sim = await startSim();
  const { engine, server } = sim;
  await engine.create("configmaps", NS, smallConfigMap("hot", NS, 0));
  const rv = engine.currentResourceVersion;
  const watchers = SIZES.watchers;
  const writes = SIZES.httpWrites;
  const client = new Client();
  await client.ready();
  await client.open(`${sim.url}${WATCH_PATH}?watch=true&resourceVersion=${rv}`, watchers);
  await until(() => server.stats.openWatches >= watchers, 60_000);
  const before = server.stats.watchEvents;
  const objects = Array.from({ length: writes }, (_, i) => smallConfigMap("hot", NS, i + 1));
  forceGc();
  const expected = watchers * writes;
  // Pace the writer on what the server has written: at most `window` writes ahead of the slowest part of the pipe,
  // so the engine's per-watcher buffers (10 events at this history size) do not overflow and close watchers.
  const window = 4;
  const start = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) {
    if (server.stats.watchEvents - before < (i - window) * watchers) {
      await until(() => server.stats.watchEvents - before >= (i - window) * watchers, 30_000, 0);
    }
    await engine.update("configmaps", NS, "hot", objects[i]!);
  }
  let received = 0;
  const complete = await until(async () => {
    received = (await client.count()).events;
    return received >= expected;
  }, 60_000);
  const ms = elapsedMs(start);
  const terminated = engine.cacher("configmaps").terminatedWatchers;
  const bytes = server.stats.watchBytes;
  await client.close();
  await until(() => server.stats.openWatches === 0, 30_000);
  client.exit();
  await sim.stop();
  return {
    perSec: received / (ms / 1000),
    note:
      `${fmtInt(received)} of ${fmtInt(expected)} lines in ${(ms / 1000).toFixed(2)} s, ${mib(bytes)} written` +
      (complete ? "" : " (incomplete)") +
      (terminated > 0 ? `, ${terminated} watchers closed as unresponsive` : ""),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 3. LIST of many objects: from the watch cache (RV=0, consistent, and exact RVs through ListFromCacheSnapshot while
// the cache's history covers them) vs from storage (the same exact RVs once a cache re-initialization emptied it).

interface ListCase {
  readonly label: string;
  readonly opts: ListOptions;
  readonly query: string;
  readonly paginate: boolean;
}

interface ListTiming {
  readonly best: number;
  readonly servedFrom: string;
  readonly items: number;
  readonly pages: number;
  readonly bytes: number;
  readonly error?: string;
}

/** The engine call (items are the stored objects: nothing is encoded), best of REPS after a warm-up. */
async function listInProcess(engine: SimApiServer, c: ListCase): Promise<ListTiming> {
  let best = Number.POSITIVE_INFINITY;
  let servedFrom = "";
  let items = 0;
  let pages = 0;
  let bytes = 0;
  for (let r = 0; r <= SIZES.reps; r++) {
    const ctx: RequestContext = { userAgent: "bench" };
    const seen = new Set<string>();
    const start = process.hrtime.bigint();
    let list = await engine.list("configmaps", "", c.opts, ctx);
    seen.add(ctx.servedFrom ?? "?");
    let got = list.items.length;
    let p = 1;
    while (c.paginate && list.metadata.continue !== undefined && list.metadata.continue !== "") {
      list = await engine.list("configmaps", "", { limit: SIZES.pageSize, continue: list.metadata.continue }, ctx);
      seen.add(ctx.servedFrom ?? "?");
      got += list.items.length;
      p++;
    }
    const ms = elapsedMs(start);
    if (r > 0) best = Math.min(best, ms);
    servedFrom = [...seen].join("+");
    items = got;
    pages = p;
    if (r === 0 && !c.paginate) bytes = Buffer.byteLength(JSON.stringify(list));
    await tick();
  }
  return { best, servedFrom, items, pages, bytes };
}

/** GETs from the child process (following continue tokens when paginating), time to last byte, best of REPS. */
async function listOverHttp(engine: SimApiServer, client: Client, baseUrl: string, c: ListCase): Promise<ListTiming> {
  let best = Number.POSITIVE_INFINITY;
  let bytes = 0;
  let pages = 0;
  let error: string | undefined;
  const url = `${baseUrl}/api/v1/configmaps${c.query === "" ? "" : `?${c.query}`}`;
  const rowKey = (row: { userAgent: string; code: number; servedFrom: string }) =>
    `${row.userAgent}|${row.code}|${row.servedFrom}`;
  const listRows = () => engine.accounting.rows().filter((row) => row.verb === "list");
  const before = new Map(listRows().map((row) => [rowKey(row), row.count] as const));
  for (let r = 0; r <= SIZES.reps && error === undefined; r++) {
    const res = await client.list(url, c.paginate ? SIZES.pageSize : 0);
    if (res.error !== undefined) error = res.error;
    else if (r > 0) best = Math.min(best, res.ms ?? Number.POSITIVE_INFINITY);
    bytes = res.bytes ?? 0;
    pages = res.pages ?? 0;
  }
  // Where the server says it served them from (its request accounting, by served_from).
  const servedFrom = listRows()
    .filter((row) => row.count > (before.get(rowKey(row)) ?? 0))
    .map((row) => row.servedFrom)
    .join("+");
  return { best, servedFrom: servedFrom || "?", items: 0, pages, bytes, ...(error !== undefined && { error }) };
}

async function listBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const n = SIZES.listObjects;
  const sim = await startSim();
  const { engine } = sim;
  const namespaces = 100;
  // The objects spread over 100 namespaces: create them first (the simulator refuses objects in a missing namespace).
  for (let i = 0; i < namespaces; i++) {
    await engine.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${i}` } });
  }
  const tCreate = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const ns = `ns-${i % namespaces}`;
    await engine.create("configmaps", ns, smallConfigMap(`config-${i}`, ns, i));
  }
  const createMs = elapsedMs(tCreate);
  const rvN = engine.currentResourceVersion;
  // One more write, so the watch cache is past rvN: an exact read at rvN needs a snapshot of the past.
  await engine.update("configmaps", "ns-0", "config-0", smallConfigMap("config-0", "ns-0", -1));
  const page = SIZES.pageSize;
  const exact: ListCase = {
    label: `RV=${rvN} Exact`,
    opts: { resourceVersion: String(rvN), resourceVersionMatch: "Exact" },
    query: `resourceVersion=${rvN}&resourceVersionMatch=Exact`,
    paginate: false,
  };
  const legacy: ListCase = {
    label: `RV=${rvN} legacy exact, limit=${page}, every page`,
    opts: { resourceVersion: String(rvN), limit: page },
    query: `resourceVersion=${rvN}&limit=${page}`,
    paginate: true,
  };
  const phases: Array<{ readonly when: string; readonly cases: readonly ListCase[]; readonly before?: () => void }> = [
    {
      when: "",
      cases: [
        { label: "RV=0", opts: { resourceVersion: "0" }, query: "resourceVersion=0", paginate: false },
        { label: 'RV="" (consistent)', opts: {}, query: "", paginate: false },
        exact,
        legacy,
      ],
    },
    {
      // A re-initialized cache relists: its history starts after rvN, so exact reads at rvN go to storage.
      when: " after a cache re-initialization",
      cases: [exact, legacy],
      before: () => engine.reinitializeCache("configmaps"),
    },
  ];
  const client = new Client();
  await client.ready();
  let baseInProc = Number.NaN;
  let baseHttp = Number.NaN;
  const describe = (t: ListTiming, http: boolean) =>
    t.error ??
    (http
      ? `${mib(t.bytes)} received${t.pages > 1 ? ` in ${t.pages} pages` : ""}, time to last byte`
      : `${fmtInt(t.items)} items${t.pages > 1 ? ` in ${t.pages} pages` : ""}${t.bytes > 0 ? `, ${mib(t.bytes)} as JSON (not timed)` : ""}`);
  for (const phase of phases) {
    phase.before?.();
    for (const c of phase.cases) {
      const t = await listInProcess(engine, c);
      if (c.label === "RV=0") baseInProc = t.best;
      rows.push({
        case: `list ${fmtInt(n)} in-process, ${c.label}${phase.when} → ${t.servedFrom}`,
        value: t.best,
        unit: "ms",
        ...(c.label !== "RV=0" && { baseline: baseInProc, ratioLabel: "this/RV=0", ratio: t.best / baseInProc }),
        note: describe(t, false),
      });
    }
    for (const c of phase.cases) {
      const t = await listOverHttp(engine, client, sim.url, c);
      if (c.label === "RV=0") baseHttp = t.best;
      const ok = t.error === undefined;
      rows.push({
        case: `list ${fmtInt(n)} over HTTP, ${c.label}${phase.when} → ${t.servedFrom}`,
        value: ok ? t.best : Number.NaN,
        unit: "ms",
        ...(c.label !== "RV=0" && ok && { baseline: baseHttp, ratioLabel: "this/RV=0", ratio: t.best / baseHttp }),
        note: describe(t, true),
      });
    }
  }
  client.exit();
  await sim.stop();
  rows.push({
    case: `create ${fmtInt(n)} ConfigMaps in-process (setup of the list cases)`,
    value: n / (createMs / 1000),
    unit: "objects/s",
  });
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * The simulated apiserver's benchmark (issue 4): idle watches held (heap per watch, in-process and over HTTP, with a
 * bare node:http server as baseline, then as many HTTP watches as the machine allows), events delivered per second
 * to many watchers (in-process with two consumer styles, and over HTTP), and a LIST of many objects served from the
 * watch cache vs from storage, in-process and over HTTP. HTTP clients run in a child process; the server-side heap
 * is measured after `global.gc()` (run with `--expose-gc`). Prints numbers; asserts nothing about timing.
 */
export async function runApiserver(): Promise<BenchResult> {
  SIZES = readSizes();
  const gcExposed = forceGc();
  const started = process.hrtime.bigint();
  const held = await heldWatches();
  const rows: BenchRow[] = [...held.rows];

  // Warm-up (not reported): compiles the dispatch and both consumers' paths before the timed runs.
  await inProcessThroughput(forAwaitConsumer, Math.min(200, SIZES.writes));
  await inProcessThroughput(thenConsumer, Math.min(200, SIZES.writes));
  const fa = await inProcessThroughput(forAwaitConsumer);
  rows.push({
    case: `events delivered to ${fmtInt(SIZES.watchers)} in-process watchers (for await)`,
    value: fa.perSec,
    unit: "events/s",
    goal: "≥ 1M events/s",
    met: fa.perSec >= 1_000_000,
    note: fa.note,
  });
  const th = await inProcessThroughput(thenConsumer);
  rows.push({
    case: `events delivered to ${fmtInt(SIZES.watchers)} in-process watchers (next().then)`,
    value: th.perSec,
    unit: "events/s",
    goal: "≥ 1M events/s",
    met: th.perSec >= 1_000_000,
    note: th.note,
  });
  const http = await httpThroughput();
  rows.push({
    case: `events delivered to ${fmtInt(SIZES.watchers)} HTTP watchers (lines counted by a child-process client)`,
    value: http.perSec,
    unit: "events/s",
    note: http.note,
  });

  if (SIZES.listObjects > 0) rows.push(...(await listBench()));

  return {
    name: "apiserver",
    rows,
    meta: {
      node: process.version,
      gcExposed,
      cores: availableParallelism(),
      ...held.meta,
      watchers: SIZES.watchers,
      writes: SIZES.writes,
      httpWrites: SIZES.httpWrites,
      listObjects: SIZES.listObjects,
      totalSeconds: Math.round(elapsedMs(started) / 1000),
      note: "one machine, shared cores: timings are noisy; heap figures are the server process after forced GC",
    },
  };
}
