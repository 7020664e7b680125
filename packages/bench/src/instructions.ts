// `pnpm bench instructions`: instruction counts of the deterministic in-process harnesses (instructions-child.ts) under
// valgrind's callgrind — a measure that repeats on a loaded machine where wall and CPU time do not. Each measured
// variant's count has its harness's `base` run (same start and stop, no measured phase) subtracted; ratios are
// between variants of one harness in this run. Without valgrind on PATH the suite reports why it skipped.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BURST_CHUNK_BYTES } from "./instructions-burst.js";
import type { InstructionsSpec } from "./instructions-child.js";
import type { BenchResult, BenchRow } from "./report.js";
import { envInt } from "./util.js";

const CHILD = fileURLToPath(new URL("./instructions-child.js", import.meta.url));

/** Callgrind's total instruction count of one child running `spec`; a failed child is an error naming the spec. */
async function countInstructions(spec: InstructionsSpec): Promise<number> {
  const args = ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, CHILD, JSON.stringify(spec)];
  const child = spawn("valgrind", args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject).on("exit", resolve);
  });
  const collected = /Collected : (\d+)/.exec(stderr);
  if (code !== 0 || collected === null) {
    const tail = stderr.trim().split("\n").slice(-3).join(" | ");
    throw new Error(`instructions: ${JSON.stringify(spec)} failed (exit ${code}): ${tail}`);
  }
  return Number(collected[1]);
}

/** Why the suite cannot run here, or undefined when `valgrind --version` works. */
function valgrindMissing(): string | undefined {
  const probe = spawnSync("valgrind", ["--version"], { encoding: "utf8" });
  if (probe.error !== undefined) return `valgrind not runnable (${probe.error.message}); install valgrind to count`;
  if (probe.status !== 0) return `valgrind --version exited ${probe.status}`;
  return undefined;
}

const M = 1e6;

/** Rows of one harness: each variant's count minus `base`, per unit of work, and its ratio to `reference`. */
async function measure<V extends string>(opts: {
  readonly title: string;
  readonly spec: (variant: V | "base") => InstructionsSpec;
  readonly variants: readonly V[];
  readonly reference: V;
  /** Units of measured work (events, reconciles, objects listed), for the per-unit figure. */
  readonly units: number;
  readonly unitName: string;
  readonly goals?: Partial<Record<V, { readonly goal: string; readonly max: number }>>;
  /** A variant's own base run, when the variants' setups differ (default: `spec("base")` for all). */
  readonly baseOf?: (variant: V) => InstructionsSpec;
}): Promise<BenchRow[]> {
  const base = await countInstructions(opts.spec("base"));
  const bases = new Map<string, number>([[JSON.stringify(opts.spec("base")), base]]);
  const baseFor = async (v: V): Promise<number> => {
    const spec = JSON.stringify(opts.baseOf?.(v) ?? opts.spec("base"));
    let b = bases.get(spec);
    if (b === undefined) {
      b = await countInstructions(JSON.parse(spec) as InstructionsSpec);
      bases.set(spec, b);
    }
    return b;
  };
  const counts = new Map<V, number>();
  for (const v of opts.variants) counts.set(v, (await countInstructions(opts.spec(v))) - (await baseFor(v)));
  const reference = counts.get(opts.reference)!;
  const rows: BenchRow[] = [...bases].map(([spec, b], i) => ({
    case: `${opts.title}: base run${bases.size > 1 ? ` ${i + 1} (${spec})` : ""} (subtracted)`,
    value: b / M,
    unit: "M instructions",
  }));
  for (const v of opts.variants) {
    const count = counts.get(v)!;
    const goal = opts.goals?.[v];
    // At small sizes a variant's count can fall within the base run's own variation (even below it): no ratio then.
    const measurable = count > 0 && reference > 0;
    const ratio = count / reference;
    rows.push({
      case: `${opts.title}: ${v}`,
      value: count / M,
      unit: "M instructions",
      ...(v !== opts.reference &&
        measurable && { baseline: reference / M, ratioLabel: `${v}/${opts.reference}`, ratio }),
      ...(goal !== undefined && { goal: goal.goal, ...(measurable && { met: ratio <= goal.max }) }),
      note: measurable
        ? `${Math.round(count / opts.units).toLocaleString("en-US")} per ${opts.unitName}`
        : "within the base run's variation: raise the size",
    });
  }
  return rows;
}

export async function runInstructions(): Promise<BenchResult> {
  const events = envInt("BENCH_INSTRUCTIONS_EVENTS", 50_000, 1);
  const keys = envInt("BENCH_INSTRUCTIONS_RECONCILES", 100_000, 1);
  const workers = envInt("BENCH_INSTRUCTIONS_WORKERS", 4, 1);
  const objects = envInt("BENCH_INSTRUCTIONS_LIST", 2_000, 1);
  const lists = envInt("BENCH_INSTRUCTIONS_LISTS", 3, 1);
  const burstKeys = envInt("BENCH_INSTRUCTIONS_BURST", 5_000, 1);
  const floorWarmup = envInt("BENCH_INSTRUCTIONS_FLOOR_WARMUP", 1, 0);
  const writes = envInt("BENCH_INSTRUCTIONS_WRITES", 2_000, 1);
  const meta = {
    node: process.version,
    events,
    reconciles: keys,
    workers,
    listObjects: objects,
    lists,
    writes,
    burstKeys,
    floorWarmup,
  };
  const missing = valgrindMissing();
  if (missing !== undefined) {
    process.stderr.write(`bench instructions: skipped — ${missing}\n`);
    return { name: "instructions", rows: [], meta: { ...meta, skipped: missing } };
  }
  const all = ["fanout", "reconcile", "list", "decode", "writes", "burst", "floor"];
  const harnesses = new Set((process.env.BENCH_INSTRUCTIONS_HARNESSES ?? all.join(",")).split(","));
  for (const h of harnesses) {
    if (!all.includes(h)) {
      throw new Error(`BENCH_INSTRUCTIONS_HARNESSES: unknown harness ${JSON.stringify(h)} (${all.join(", ")})`);
    }
  }
  const fanout = !harnesses.has("fanout")
    ? []
    : await measure({
        title: "informer fan-out (in-process, 100 objects)",
        spec: (variant) => ({ harness: "fanout", variant, events }),
        variants: ["callback", "n1", "n4", "n16", "reflect"] as const,
        reference: "callback",
        units: events,
        unitName: "event",
        goals: {
          n1: { goal: "≤ 1.1× callback", max: 1.1 },
          n4: { goal: "≤ 1.1× callback", max: 1.1 },
          n16: { goal: "≤ 1.1× callback", max: 1.1 },
          reflect: { goal: "≤ 1.1× callback", max: 1.1 },
        },
      });
  const reconcile = !harnesses.has("reconcile")
    ? []
    : await measure({
        title: `no-op reconciles (${workers} workers)`,
        spec: (variant) =>
          variant === "base"
            ? { harness: "reconcile", variant: "off", keys: 0, workers }
            : { harness: "reconcile", variant, keys, workers },
        variants: ["off", "prom"] as const,
        reference: "off",
        units: keys,
        unitName: "reconcile",
        goals: { prom: { goal: "≤ 1.3× off", max: 1.3 } },
      });
  const list = !harnesses.has("list")
    ? []
    : await measure({
        title: `LIST of 1 KiB ConfigMaps over loopback, server + client in one process (${objects} × ${lists})`,
        spec: (variant) => ({ harness: "list", variant: variant === "base" ? "none" : variant, objects, lists }),
        variants: ["full", "meta"] as const,
        reference: "full",
        units: objects * lists,
        unitName: "object listed",
      });
  const decode = !harnesses.has("decode")
    ? []
    : await measure({
        title: `the client's side of a LIST of 1 KiB ConfigMaps into a store, prepared bodies (${objects} × ${lists})`,
        spec: (variant) => ({ harness: "decode", variant: variant === "base" ? "none" : variant, objects, lists }),
        variants: ["full", "meta-whole", "meta-drop"] as const,
        reference: "full",
        units: objects * lists,
        unitName: "object listed",
        goals: { "meta-drop": { goal: "≤ 1/3 of full", max: 1 / 3 } },
      });
  const burstRows = !harnesses.has("burst")
    ? []
    : await measure({
        title: `controller burst (in-process NDJSON, ${burstKeys} keys modified once, ${BURST_CHUNK_BYTES / 1024} KiB chunks)`,
        spec: (variant) => ({ harness: "burst", variant, setup: "informer-ts", keys: burstKeys }),
        baseOf: (variant) => ({ harness: "burst", variant: "base", setup: variant, keys: burstKeys }),
        variants: ["client-node", "informer-ts"] as const,
        reference: "client-node",
        units: burstKeys,
        unitName: "reconcile",
        goals: { "informer-ts": { goal: "≤ 1/1.2 client-node", max: 1 / 1.2 } },
      });
  const floorRows = !harnesses.has("floor")
    ? []
    : await measure({
        title: `the JSON floor (in-process NDJSON, ${burstKeys} objects modified once after ${floorWarmup} warm-up backlog(s), ${BURST_CHUNK_BYTES / 1024} KiB chunks)`,
        spec: (variant) => ({ harness: "floor", variant, setup: "floor", events: burstKeys, warmup: floorWarmup }),
        baseOf: (variant) => ({
          harness: "floor",
          variant: "base",
          setup: variant,
          events: burstKeys,
          warmup: floorWarmup,
        }),
        variants: ["floor", "reflector"] as const,
        reference: "floor",
        units: burstKeys,
        unitName: "event",
        goals: { reflector: { goal: "≤ 1/0.95 floor", max: 1 / 0.95 } },
      });
  const writeRows: BenchRow[] = [];
  for (const kind of harnesses.has("writes") ? (["pod", "deployment", "widget"] as const) : []) {
    writeRows.push(
      ...(await measure({
        title: `${kind} writes in-process, create + update (${writes} × 2)`,
        spec: (variant) => ({ harness: "writes", variant: variant === "base" ? "none" : variant, kind, writes }),
        variants: ["off", "on"] as const,
        reference: "off",
        units: writes * 2,
        unitName: "write",
        goals: { on: { goal: "≤ 1.5× admission off", max: 1.5 } },
      })),
    );
  }
  return {
    name: "instructions",
    rows: [...fanout, ...reconcile, ...list, ...decode, ...writeRows, ...burstRows, ...floorRows],
    meta,
  };
}
