// `pnpm bench apiserver`: the simulated kube-apiserver's own costs (see runApiserver). Parts: apiserver-sizes.ts
// (sizes from the environment), apiserver-harness.ts, apiserver-held-watches.ts, apiserver-delivery.ts, apiserver-lists.ts.
import { availableParallelism } from "node:os";
import { forAwaitConsumer, httpThroughput, inProcessThroughput, thenConsumer } from "./apiserver-delivery.js";
import { elapsedMs, fmtInt } from "./apiserver-harness.js";
import { heldWatches } from "./apiserver-held-watches.js";
import { listBench } from "./apiserver-lists.js";
import { readSizes } from "./apiserver-sizes.js";
import { type BenchResult, type BenchRow, forceGc } from "./report.js";

/**
 * The simulated apiserver's benchmark (issue 4): idle watches held (heap per watch, in-process and over HTTP, with a
 * bare node:http server as baseline, then as many HTTP watches as the machine allows), events delivered per second
 * to many watchers (in-process with two consumer styles, and over HTTP), and a LIST of many objects served from the
 * watch cache vs from storage, in-process and over HTTP. HTTP clients run in a child process; the server-side heap
 * is measured after `global.gc()` (run with `--expose-gc`). Prints numbers; asserts nothing about timing.
 */
export async function runApiserver(): Promise<BenchResult> {
  const sizes = readSizes();
  const gcExposed = forceGc();
  const started = process.hrtime.bigint();
  const held = await heldWatches(sizes);
  const rows: BenchRow[] = [...held.rows];

  // Warm-up (not reported): compiles the dispatch and both consumers' paths before the timed runs.
  await inProcessThroughput(sizes, forAwaitConsumer, Math.min(200, sizes.writes));
  await inProcessThroughput(sizes, thenConsumer, Math.min(200, sizes.writes));
  const fa = await inProcessThroughput(sizes, forAwaitConsumer);
  rows.push({
    case: `events delivered to ${fmtInt(sizes.watchers)} in-process watchers (for await)`,
    value: fa.perSec,
    unit: "events/s",
    goal: "≥ 1M events/s",
    met: fa.perSec >= 1_000_000,
    note: fa.note,
  });
  const th = await inProcessThroughput(sizes, thenConsumer);
  rows.push({
    case: `events delivered to ${fmtInt(sizes.watchers)} in-process watchers (next().then)`,
    value: th.perSec,
    unit: "events/s",
    goal: "≥ 1M events/s",
    met: th.perSec >= 1_000_000,
    note: th.note,
  });
  const http = await httpThroughput(sizes);
  rows.push({
    case: `events delivered to ${fmtInt(sizes.watchers)} HTTP watchers (lines counted by a child-process client)`,
    value: http.perSec,
    unit: "events/s",
    note: http.note,
  });

  if (sizes.listObjects > 0) rows.push(...(await listBench(sizes)));

  return {
    name: "apiserver",
    rows,
    meta: {
      node: process.version,
      gcExposed,
      cores: availableParallelism(),
      ...held.meta,
      watchers: sizes.watchers,
      writes: sizes.writes,
      httpWrites: sizes.httpWrites,
      listObjects: sizes.listObjects,
      totalSeconds: Math.round(elapsedMs(started) / 1000),
      note: "one machine, shared cores: timings are noisy; heap figures are the server process after forced GC",
    },
  };
}
