import { SimApiServer, type SimWatch } from "@informer-ts/sim-apiserver";
import {
  bareServer,
  Client,
  elapsedMs,
  FD_RESERVE,
  fdLimit,
  fmtInt,
  NS,
  startSim,
  until,
  WATCH_PATH,
} from "./apiserver-harness.js";
import type { ApiserverSizes } from "./apiserver-sizes.js";
import { type BenchRow, heapUsed } from "./report.js";
import { KiB, smallConfigMap } from "./util.js";

interface HeldResult {
  readonly rows: BenchRow[];
  readonly meta: Record<string, string | number | boolean>;
}

export async function heldWatches(sizes: ApiserverSizes): Promise<HeldResult> {
  const rows: BenchRow[] = [];
  const meta: Record<string, string | number | boolean> = {};
  const n = sizes.watches;

  // Engine only: idle in-process watches (CacheWatcher + its deadline timer).
  {
    const engine = new SimApiServer({ compactionIntervalMs: 0 });
    const rv = String(engine.currentResourceVersion);
    const m = sizes.inProcessWatches;
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
  if (sizes.initialObjects > 0 && sizes.initialWatches > 0) {
    const engine = new SimApiServer({ compactionIntervalMs: 0 });
    for (let i = 0; i < sizes.initialObjects; i++) {
      await engine.create("configmaps", NS, smallConfigMap(`config-${i}`, NS, i));
    }
    const consumed = async (): Promise<SimWatch> => {
      const w = await engine.watch("configmaps", NS, { resourceVersion: "0" });
      for (let i = 0; i < sizes.initialObjects; i++) await w.next();
      return w;
    };
    const warm = await consumed(); // compiles the code paths before the heap baseline
    const h0 = heapUsed();
    const watches: SimWatch[] = [];
    for (let i = 0; i < sizes.initialWatches; i++) watches.push(await consumed());
    const per = (heapUsed() - h0) / sizes.initialWatches;
    rows.push({
      case: `heap per in-process RV=0 watch after its ${fmtInt(sizes.initialObjects)}-object initial list (${fmtInt(sizes.initialWatches)} held)`,
      value: per,
      unit: "B/watch",
      goal: "≤ 4 KiB",
      met: per <= 4 * KiB,
      note: `a watch that kept its snapshot would hold ≥ ${fmtInt(8 * sizes.initialObjects)} B more`,
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
    // Issue 25's goal is relative: what the simulator holds per idle watch beside what node:http itself holds.
    goal: "≤ 1.5× bare node:http",
    met: ok && bareOk && per / bPer <= 1.5,
    note: ok
      ? `opened in ${(openMs / 1000).toFixed(1)} s`
      : `only ${server.stats.openWatches} opened (${first.failures} failures: ${JSON.stringify(first.errors)})`,
  });

  // Ramp: add watches in steps until the cap, the fd limit (server and client each hold one socket per watch) or
  // the first failures.
  const limit = fdLimit();
  const fdBound = limit === undefined ? Number.POSITIVE_INFINITY : limit - FD_RESERVE;
  const target = Math.min(sizes.maxWatches, fdBound);
  let stopReason =
    target === sizes.maxWatches
      ? `cap BENCH_APISERVER_MAX_WATCHES=${sizes.maxWatches}`
      : `fd limit: RLIMIT_NOFILE=${limit} per process, minus ${FD_RESERVE} kept for other files`;
  t0 = process.hrtime.bigint();
  let held = server.stats.openWatches;
  while (ok && held < target && sizes.rampStep > 0) {
    const step = Math.min(sizes.rampStep, target - held);
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
