import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type MemoryCheckInput, type MemoryCheckOutput, RESULT_MARKER } from "./internal/memory-check.js";
import { seedFromEnv } from "./internal/replay-seed.js";
import type { InvariantReport } from "./invariants.js";

export type { MemoryInformerContext } from "./internal/memory-check.js";

/** Options of {@link memoryStaysBounded}. */
export interface MemoryStaysBoundedOptions {
  /** ConfigMaps in the cluster (about 1 KiB each; default 2000). */
  readonly objects?: number;
  /** Generated relist/churn sequences, each followed by a heap sample (default 5). */
  readonly numRuns?: number;
  /** Seed of the sequences and the simulator (default 1; `FC_SEED` overrides it). */
  readonly seed?: number;
  /** How far above the steady state a sample may be (default 0.10: 10 %). */
  readonly tolerance?: number;
  /**
   * Your informer: a JavaScript module (path or `file:` URL) and the name of its export (default `default`), a
   * function `(ctx: MemoryInformerContext) => SharedIndexInformer` that builds it on `ctx.listerWatcher` (ConfigMaps of
   * `ctx.cluster`, with list responses and watch events tracked by WeakRef). Default: the library's shared informer.
   */
  readonly informer?: { readonly module: string | URL; readonly export?: string };
  /** Also check that a stopped informer, factory and controller leave no timers, sockets or listeners (default true). */
  readonly lifecycle?: boolean;
  /** Real-time limit of the child process (default 300 000 ms). */
  readonly timeoutMs?: number;
}

/** One heap sample: the sequence just applied, the heap after it settled, and its ratio to the steady state. */
export interface MemorySample {
  readonly sequence: readonly string[];
  readonly heapBytes: number;
  readonly ratio: number;
}

/** The outcome of {@link memoryStaysBounded}: `ok`, the invariant reports, and the measurements behind them. */
export interface MemoryReport {
  readonly ok: boolean;
  readonly seed: number;
  readonly reports: readonly InvariantReport[];
  /** Heap used at the steady state (after the informer synced, a warm-up relist and churn, and a full GC). */
  readonly baselineBytes: number;
  readonly samples: readonly MemorySample[];
  /** List responses (and their `items` arrays) handed to the informer: how many were tracked, how many are alive. */
  readonly listResponses: { readonly tracked: number; readonly alive: number };
  /** Watch events handed to the informer (a sample of them): tracked and still alive. */
  readonly watchEvents: { readonly tracked: number; readonly alive: number };
}

const MB = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

function childScript(): string {
  const here = fileURLToPath(new URL("./internal/memory-child.js", import.meta.url));
  if (existsSync(here)) return here;
  // Running from the TypeScript sources (a test runner): the child runs the package's build output.
  const built = here.replace(/([\\/])src([\\/])internal([\\/])memory-child\.js$/, "$1dist$2internal$3memory-child.js");
  if (built !== here && existsSync(built)) return built;
  throw new Error(`memoryStaysBounded: ${here} is missing (build @informer-ts/testing first)`);
}

function runChild(input: MemoryCheckInput, timeoutMs: number): Promise<MemoryCheckOutput | string> {
  let script: string;
  try {
    script = childScript();
  } catch (err) {
    return Promise.resolve(err instanceof Error ? err.message : String(err));
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", script, JSON.stringify(input)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FC_SEED: "" },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve(`could not start the child process: ${e.message}`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith(RESULT_MARKER));
      if (line !== undefined) {
        try {
          resolve(JSON.parse(line.slice(RESULT_MARKER.length)) as MemoryCheckOutput);
          return;
        } catch {
          // fall through: reported below
        }
      }
      const why = signal === "SIGKILL" ? `killed after ${timeoutMs} ms` : `exited with code ${code}`;
      resolve(`the child process ${why} without a result: ${err.trim().split("\n").slice(-5).join(" | ")}`);
    });
  });
}

/**
 * Memory as a property (principle 5): in a child process started with `--expose-gc`, an informer (yours, or the
 * library's) syncs `objects` ConfigMaps from the simulated cluster; after a warm-up the heap at the steady state is
 * measured; then fast-check-generated relist/churn sequences (updates, deletes and re-creates, compaction with 410 and
 * relist, watch-cache re-initialization, time passing) each end in a settle, a full GC and a heap sample. Reports:
 * `heapStaysBounded` (every sample within `tolerance` of the steady state), `responsesCollectable` (no list response,
 * items array or watch event is reachable once its objects are stored, checked with `WeakRef`),
 * `stoppedLeavesNothing` (a stopped informer, factory and controller — over real HTTP — leave no timer on the clock, no
 * open watch, no socket, no abort listener and no new active handle in the process) and `memoryCheckRan`.
 *
 * Resolves with a {@link MemoryReport} (`ok` false when any report has violations); never rejects for a violation or a
 * failed child. Needs the package's build output (it runs `dist/internal/memory-child.js`).
 */
export async function memoryStaysBounded(options: MemoryStaysBoundedOptions = {}): Promise<MemoryReport> {
  const seed = seedFromEnv(options.seed ?? 1);
  const tolerance = options.tolerance ?? 0.1;
  const objects = options.objects ?? 2000;
  const numRuns = options.numRuns ?? 5;
  if (!(Number.isInteger(objects) && objects > 0)) {
    throw new RangeError(`memoryStaysBounded: objects must be a positive integer, got ${objects}`);
  }
  if (!(Number.isInteger(numRuns) && numRuns > 0)) {
    throw new RangeError(`memoryStaysBounded: numRuns must be a positive integer, got ${numRuns}`);
  }
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) {
    throw new RangeError(`memoryStaysBounded: tolerance must be a finite number ≥ 0, got ${tolerance}`);
  }
  const mod = options.informer?.module;
  const input: MemoryCheckInput = {
    objects,
    numRuns,
    seed,
    lifecycle: options.lifecycle ?? true,
    ...(mod !== undefined && {
      informerModule: mod instanceof URL ? mod.href : mod.startsWith("file:") ? mod : pathToFileURL(mod).href,
    }),
    ...(options.informer?.export !== undefined && { informerExport: options.informer.export }),
  };
  const result = await runChild(input, options.timeoutMs ?? 300_000);
  if (typeof result === "string") {
    const reports = [{ name: "memoryCheckRan", ok: false, violations: [result] }];
    const none = { tracked: 0, alive: 0 };
    return { ok: false, seed, reports, baselineBytes: 0, samples: [], listResponses: none, watchEvents: none };
  }
  const samples = result.samples.map((s) => ({ ...s, ratio: s.heapBytes / result.baselineBytes }));
  const heap = samples
    .filter((s) => s.ratio > 1 + tolerance)
    .map(
      (s) =>
        `after [${s.sequence.join("; ")}] the heap is ${MB(s.heapBytes)}, ${((s.ratio - 1) * 100).toFixed(1)} % over the steady state ${MB(result.baselineBytes)}`,
    );
  const refs: string[] = [];
  if (result.listResponses.alive > 0) {
    refs.push(
      `${result.listResponses.alive} of ${result.listResponses.tracked} list responses/items arrays still reachable`,
    );
  }
  if (result.watchEvents.alive > 0) {
    refs.push(`${result.watchEvents.alive} of ${result.watchEvents.tracked} watch events still reachable`);
  }
  const stopped = result.stopped.flatMap((s) => s.violations.map((v) => `${s.component}: ${v}`));
  const reports: InvariantReport[] = [
    { name: "memoryCheckRan", ok: result.errors.length === 0, violations: result.errors },
    { name: "heapStaysBounded", ok: heap.length === 0, violations: heap },
    { name: "responsesCollectable", ok: refs.length === 0, violations: refs },
    ...(input.lifecycle ? [{ name: "stoppedLeavesNothing", ok: stopped.length === 0, violations: stopped }] : []),
  ];
  return {
    ok: reports.every((r) => r.ok),
    seed,
    reports,
    baselineBytes: result.baselineBytes,
    samples,
    listResponses: result.listResponses,
    watchEvents: result.watchEvents,
  };
}
