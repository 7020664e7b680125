// Study 002 (parts 1 and 2): the heap an informer's initial sync needs at its peak and keeps afterwards, by RV "0"
// full LIST, paginated LIST and watch-list, with and without the reflector's shallow copy of LIST items; and whether
// anything in this implementation lets a stored item pin its list response (the Go leak of kubernetes#111370).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@informer-ts/apimachinery";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import type { StudyReport, SummaryRow, VariantResult } from "../../report/study-report.js";
import {
  LIST_MEMORY_CHILD_ENV,
  type ListMemoryChildResult,
  type ListMemoryChildSpec,
  type ListMemoryVariant,
} from "./list-memory-child.js";

export type { ListMemoryChildResult, ListMemoryVariant } from "./list-memory-child.js";

/** Every variant, in the order they run and are reported. */
export const LIST_MEMORY_VARIANTS: readonly ListMemoryVariant[] = [
  "list-rv0",
  "list-rv0-copy",
  "list-paginated",
  "watch-list",
];

const LABELS: Record<ListMemoryVariant, string> = {
  "list-rv0": 'LIST RV "0", store takes the items',
  "list-rv0-copy": 'LIST RV "0", items shallow-copied',
  "list-paginated": 'paginated LIST (RV "")',
  "watch-list": "watch-list",
};

/** Options of {@link runListMemory}. */
export interface ListMemoryOptions {
  /** ConfigMaps in the cluster (~1 KiB each). Default 20 000. */
  readonly objects?: number;
  /** Page size of the paginated variant. Default 500 (client-go's pager default). */
  readonly pageSize?: number;
  /** Measurements per variant, rounds alternating the variants; the lowest of each figure is kept. Default 2. */
  readonly repeats?: number;
  readonly variants?: readonly ListMemoryVariant[];
  /**
   * Search a heap snapshot of each child for sliced strings (default true; it takes seconds per child). Without it
   * the pinning verdict rests on the WeakRefs and the retained Buffers only.
   */
  readonly snapshot?: boolean;
  /** Seed of the objects' contents. Default 1. */
  readonly seed?: number;
  readonly progress?: (line: string) => void;
  /** The child script (default: `list-memory-child.js` beside this module's compiled file, in `dist/`). */
  readonly childScript?: string;
}

/** The compiled child script beside this module (from `src/…ts` when running the sources, it is `dist/…js`). */
function defaultChildScript(): string {
  const here = fileURLToPath(new URL("./list-memory-child.js", import.meta.url));
  const at = here.lastIndexOf("/src/");
  return at < 0 ? here : `${here.slice(0, at)}/dist/${here.slice(at + 5)}`;
}

function configMap(i: number, seed: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `cm-${String(i).padStart(6, "0")}`,
      namespace: "default",
      labels: { app: "list-memory", shard: String(i % 16) },
      annotations: { "example.com/owner": `team-${(i * 7 + seed) % 50}` },
    },
    data: { "config.yaml": `key: ${i}\nvalue: ${"v".repeat(700)}\nseed: ${seed}\n` },
  };
}

/** Runs one variant in a child process started with `--expose-gc`; a failure comes back as `ok: false`. */
function runChild(script: string, spec: ListMemoryChildSpec): Promise<ListMemoryChildResult> {
  const child = spawn(process.execPath, ["--expose-gc", script], {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: { ...process.env, [LIST_MEMORY_CHILD_ENV]: JSON.stringify(spec) },
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const failed = (error: string): ListMemoryChildResult => ({
    variant: spec.variant,
    ok: false,
    error,
    stored: 0,
    peakHeap: Number.NaN,
    liveAtList: Number.NaN,
    bodyBytes: Number.NaN,
    retainedHeap: Number.NaN,
    retainedArrayBuffers: Number.NaN,
    listsAlive: 0,
    listsSeen: 0,
    slicedStrings: 0,
    slicedParentBytes: 0,
    syncMs: Number.NaN,
  });
  return new Promise((resolve) => {
    let result: ListMemoryChildResult | undefined;
    child.on("message", (m) => {
      result = m as ListMemoryChildResult;
    });
    child.on("error", (err) => resolve(failed(`cannot start ${script}: ${err.message}`)));
    child.on("exit", (code, signal) =>
      resolve(
        result ??
          failed(
            `the child ${script} exited (${signal ?? `code ${code}`}) without a result: ${stderr.trim().slice(-500)}`,
          ),
      ),
    );
  });
}

/** The lowest of each figure over the successful runs (the machine is shared: noise only adds). */
function best(runs: readonly ListMemoryChildResult[]): ListMemoryChildResult {
  const ok = runs.filter((r) => r.ok);
  const first = ok[0] ?? runs[0];
  if (first === undefined) throw new Error("no measurement");
  if (ok.length === 0) return first;
  const min = (f: (r: ListMemoryChildResult) => number) => Math.min(...ok.map(f));
  return {
    ...first,
    peakHeap: min((r) => r.peakHeap),
    liveAtList: min((r) => r.liveAtList),
    bodyBytes: min((r) => r.bodyBytes),
    retainedHeap: min((r) => r.retainedHeap),
    retainedArrayBuffers: min((r) => r.retainedArrayBuffers),
    syncMs: min((r) => r.syncMs),
    listsAlive: Math.max(...ok.map((r) => r.listsAlive)),
    slicedStrings: Math.max(...ok.map((r) => r.slicedStrings)),
    slicedParentBytes: Math.max(...ok.map((r) => r.slicedParentBytes)),
  };
}

/** Bytes a stored item may pin before the verdict calls it pinning: 1 MiB. */
const PIN_THRESHOLD = 1 << 20;

/** Whether a measurement found anything that keeps a list response (or a body) alive after the sync. */
export function pins(r: ListMemoryChildResult): boolean {
  return r.listsAlive > 0 || r.slicedParentBytes > PIN_THRESHOLD || r.retainedArrayBuffers > PIN_THRESHOLD;
}

/**
 * Runs study 002's memory parts: a simulated apiserver over real HTTP in this process holds `objects` ConfigMaps;
 * each variant's initial sync runs in its own child process (`node --expose-gc`) — an informer over HTTP with
 * `@informer-ts/client` — which reports the peak heap during the sync (sampled every 2 ms), the heap retained after
 * full GCs, the Buffers retained, whether any list response is still reachable (WeakRefs) and the sliced strings a
 * heap snapshot holds (a V8 sliced string pins its whole parent, e.g. a response body). Real memory: the figures
 * vary a little between runs; each is the lowest of `repeats` rounds.
 */
export async function runListMemory(options: ListMemoryOptions = {}): Promise<StudyReport> {
  const o = {
    objects: options.objects ?? 20_000,
    pageSize: options.pageSize ?? 500,
    repeats: options.repeats ?? 2,
    seed: options.seed ?? 1,
  };
  if (!Number.isInteger(o.objects) || o.objects < 1)
    throw new RangeError(`objects must be an integer ≥ 1, got ${o.objects}`);
  if (!Number.isInteger(o.pageSize) || o.pageSize < 1)
    throw new RangeError(`pageSize must be an integer ≥ 1, got ${o.pageSize}`);
  if (!Number.isInteger(o.repeats) || o.repeats < 1)
    throw new RangeError(`repeats must be an integer ≥ 1, got ${o.repeats}`);
  const variants = options.variants ?? LIST_MEMORY_VARIANTS;
  const script = options.childScript ?? defaultChildScript();
  const engine = new SimApiServer({
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    watchList: true,
    listFromCacheSnapshot: true,
  });
  const cms = engine.resource("configmaps");
  // Seeded as objects that existed before the server started (the registry's create defaults; a ConfigMap gains none,
  // so the stored objects are byte for byte what straight storage writes gave).
  for (let i = 0; i < o.objects; i++) engine.registry.seed(cms, "default", configMap(i, o.seed));
  const http = new SimHttpServer({ backend: new EngineBackend(engine) });
  const runs = new Map<ListMemoryVariant, ListMemoryChildResult[]>();
  try {
    const url = await http.start();
    for (let round = 0; round < o.repeats; round++)
      for (const variant of variants) {
        const r = await runChild(script, {
          url,
          variant,
          objects: o.objects,
          pageSize: o.pageSize,
          snapshot: options.snapshot ?? true,
        });
        runs.set(variant, [...(runs.get(variant) ?? []), r]);
        options.progress?.(
          `[${variant}] round ${round + 1}/${o.repeats}: ` +
            (r.ok
              ? `${r.stored} stored, peak ${mib(r.peakHeap)}, retained ${mib(r.retainedHeap)}, lists alive ${r.listsAlive}/${r.listsSeen}`
              : `failed: ${r.error}`),
        );
      }
  } finally {
    await http.close();
    engine.stop();
  }
  const results = variants.map((v) => best(runs.get(v) ?? []));
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    throw new Error(`list-memory: ${failed.map((r) => `${r.variant}: ${r.error ?? "failed"}`).join("; ")}`);
  return listMemoryReport(
    results,
    { ...o, variants: variants.join(","), snapshot: options.snapshot ?? true },
    {
      runs: Object.fromEntries(runs),
    },
  );
}

/**
 * The study's report from the children's results (one per variant, in order): figures per variant, the summary with
 * the verdict, and the heap chart. `params` are the run's options as reported; `extra` goes to `--json` as it is.
 */
export function listMemoryReport(
  results: readonly ListMemoryChildResult[],
  params: { readonly objects: number; readonly pageSize: number; readonly repeats: number } & Readonly<
    Record<string, number | string | boolean>
  >,
  extra: Readonly<Record<string, unknown>> = {},
): StudyReport {
  const o = params;
  const byVariant: VariantResult[] = results.map((r) => ({
    name: LABELS[r.variant],
    samples: [],
    waitBuckets: [],
    figures: {
      stored: r.stored,
      peakHeapBytes: r.peakHeap,
      liveAtListBytes: r.liveAtList,
      bodyBytes: r.bodyBytes,
      retainedHeapBytes: r.retainedHeap,
      retainedArrayBufferBytes: r.retainedArrayBuffers,
      listsAlive: r.listsAlive,
      listsSeen: r.listsSeen,
      slicedStrings: r.slicedStrings,
      slicedParentBytes: r.slicedParentBytes,
      syncMs: r.syncMs,
      pins: pins(r) ? 1 : 0,
    },
  }));
  return {
    scenario: "list-memory",
    title: "An informer's initial sync: peak and retained heap, and whether a stored item can pin its list",
    source:
      'shared/background/002: a LIST at RV "0" holds the whole body and the decoded list at once; in Go a stored ' +
      "item pins its list's backing array (kubernetes#111370), so client-go shallow-copies every item",
    params,
    description:
      `${o.objects} ConfigMaps (~1 KiB) served over HTTP by the simulated apiserver; each sync in a child process ` +
      `(node --expose-gc), lowest of ${o.repeats} round${o.repeats === 1 ? "" : "s"}; page size ${o.pageSize}`,
    variants: byVariant,
    summary: summarize(results),
    charts: [
      {
        kind: "bar",
        frame: { id: "heap", title: "Heap during and after the initial sync", xLabel: "variant", yLabel: "MiB" },
        categories: results.map((r) => r.variant),
        series: [
          { name: "peak above baseline (sampled, measured)", values: results.map((r) => r.peakHeap / 2 ** 20) },
          {
            name: "decode peak, modelled (decoded list + body, a sum)",
            values: results.map((r) => (r.variant === "watch-list" ? 0 : (r.liveAtList + r.bodyBytes) / 2 ** 20)),
          },
          { name: "retained after GC (measured)", values: results.map((r) => r.retainedHeap / 2 ** 20) },
        ],
      },
    ],
    standardCharts: [],
    extra,
  };
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function summarize(results: readonly ListMemoryChildResult[]): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const of = (v: ListMemoryVariant) => results.find((r) => r.variant === v);
  for (const r of results) {
    rows.push({
      variant: LABELS[r.variant],
      metric: "peak heap above baseline, sampled every 2 ms",
      writeUp: "—",
      measured: `${mib(r.peakHeap)} (${(r.peakHeap / Math.max(1, r.retainedHeap)).toFixed(2)} × retained)`,
      figure: "measured",
    });
    if (r.variant !== "watch-list")
      rows.push({
        variant: LABELS[r.variant],
        metric: "live heap with the (largest) response decoded, before the store takes it",
        writeUp:
          r.variant === "list-paginated" ? "pages accumulate into one list (client-go's pager)" : "the whole list",
        measured: `${mib(r.liveAtList)} (${r.listsSeen / 2} response${r.listsSeen === 2 ? "" : "s"})`,
        figure: "measured",
      });
    if (r.variant !== "watch-list")
      rows.push({
        variant: LABELS[r.variant],
        metric: "peak while decoding: the decoded list + the largest body (a sum, not a sample)",
        writeUp: r.variant === "list-rv0" ? "2 full copies (bytes + objects)" : "—",
        measured: `≈ ${mib(r.liveAtList + r.bodyBytes)} (body ${mib(r.bodyBytes)}; ${((r.liveAtList + r.bodyBytes) / Math.max(1, r.retainedHeap)).toFixed(2)} × retained)`,
        figure: "modelled",
        source:
          "computed: the measured decoded list plus the measured body size; the 2 ms sampler's peak is its own row",
      });
    rows.push({
      variant: LABELS[r.variant],
      metric: "heap retained after the sync and full GCs",
      writeUp: "—",
      measured: `${mib(r.retainedHeap)} for ${r.stored} objects`,
      figure: "measured",
    });
    rows.push({
      variant: LABELS[r.variant],
      metric: "list responses alive / sliced-string parents / Buffers retained",
      writeUp: r.variant === "list-rv0" ? "Go: every item pins the list's array" : "—",
      measured:
        `${r.listsAlive} of ${r.listsSeen} / ` +
        `${r.slicedStrings < 0 ? "not searched" : `${r.slicedStrings} sliced (${mib(r.slicedParentBytes)} in parents ≥ 64 KiB)`} / ` +
        `${mib(r.retainedArrayBuffers)} → ${pins(r) ? "PINS" : "nothing pinned"}`,
      figure: "measured",
    });
  }
  const plain = of("list-rv0");
  const copy = of("list-rv0-copy");
  if (plain !== undefined && copy !== undefined)
    rows.push({
      variant: "verdict",
      metric: "the reflector's shallow copy of LIST items (copyListItems)",
      writeUp: "needed in Go (kubernetes#111370)",
      measured:
        `retains ${Math.abs((copy.retainedHeap / plain.retainedHeap - 1) * 100).toFixed(0)} % ` +
        `${copy.retainedHeap >= plain.retainedHeap ? "more" : "less"} heap, peak ${mib(copy.peakHeap)} vs ${mib(plain.peakHeap)}; ` +
        `pins ${pins(plain) ? "something" : "nothing"} without it → default off`,
      figure: "measured",
    });
  return rows;
}
