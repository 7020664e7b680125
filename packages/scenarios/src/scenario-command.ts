// `informer scenario <name> [flags]`: parses a study's flags, runs it, prints its progress and summary, writes
// --json and --report.
import { writeFileSync } from "node:fs";
import { didYouMean, parseCommandLine, UsageError } from "@informer-ts/apimachinery";
import { SCENARIO_NAMES, SCENARIO_USAGE } from "./cli-usage.js";
import { renderHtmlReport } from "./report/html-report.js";
import { formatSummaryTable, type ScenarioReport } from "./report/scenario-report.js";
import {
  runStatefulSetResync,
  STATEFULSET_RESYNC_VARIANTS,
  type StatefulSetResyncVariant,
} from "./scenarios/statefulset-resync.js";

/** Where a scenario command writes: the summary to `out`, progress lines to `err`. */
export interface ScenarioIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const common = {
  seed: { type: "string", default: "1" },
  json: { type: "string" },
  report: { type: "string" },
  heap: { type: "boolean", default: false },
} as const;

function number(name: string, raw: string | undefined, min: number, integer = false): number {
  const v = Number(raw);
  if (raw === undefined || raw.trim() === "" || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v)))
    throw new UsageError(`--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}, got "${raw}"`);
  return v;
}

/**
 * Runs `informer scenario <args…>` and returns the exit status. Unknown study names and bad flags throw a
 * {@link UsageError} naming them (with a suggestion); a failure of the study itself propagates as an error.
 */
export async function scenarioCommand(args: readonly string[], io: ScenarioIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.out(SCENARIO_USAGE);
    return 0;
  }
  if (!SCENARIO_NAMES.includes(name))
    throw new UsageError(`unknown scenario "${name}"${didYouMean(name, SCENARIO_NAMES)}`);
  const { values } = parseCommandLine({
    args: rest,
    options: {
      ...common,
      statefulsets: { type: "string", default: "2000" },
      "cost-ms": { type: "string", default: "40" },
      "cost-spread-ms": { type: "string", default: "0" },
      resync: { type: "string", default: "30" },
      workers: { type: "string", default: "5" },
      duration: { type: "string", default: "360" },
      probes: { type: "string", default: "5" },
      "probe-start": { type: "string", default: "120" },
      "probe-interval": { type: "string", default: "25" },
      sample: { type: "string", default: "1" },
      variants: { type: "string", default: STATEFULSET_RESYNC_VARIANTS.join(",") },
    },
  });
  const variants = (values.variants ?? "").split(",").map((v) => v.trim());
  for (const v of variants)
    if (!STATEFULSET_RESYNC_VARIANTS.includes(v as StatefulSetResyncVariant))
      throw new UsageError(`--variants: unknown variant "${v}"${didYouMean(v, STATEFULSET_RESYNC_VARIANTS)}`);
  const sample = number("sample", values.sample, 0.001);
  const costMs = number("cost-ms", values["cost-ms"], 0);
  const spread = number("cost-spread-ms", values["cost-spread-ms"], 0);
  if (spread > costMs) throw new UsageError(`--cost-spread-ms (${spread}) must not exceed --cost-ms (${costMs})`);
  const durationSeconds = number("duration", values.duration, sample);
  const probes = number("probes", values.probes, 0, true);
  const probeStartSeconds = number("probe-start", values["probe-start"], 0);
  const probeIntervalSeconds = number("probe-interval", values["probe-interval"], 0);
  const lastProbe = probeStartSeconds + (probes - 1) * probeIntervalSeconds;
  if (probes > 0 && lastProbe > durationSeconds)
    throw new UsageError(
      `--duration ${durationSeconds} ends before the last probe is created (--probe-start + (--probes − 1) × --probe-interval = ` +
        `${lastProbe} s): raise --duration or lower --probes, --probe-start or --probe-interval`,
    );
  const report = await runStatefulSetResync({
    statefulsets: number("statefulsets", values.statefulsets, 0, true),
    costMs,
    costSpreadMs: spread,
    resyncSeconds: number("resync", values.resync, 0),
    workers: number("workers", values.workers, 1, true),
    durationSeconds,
    probes,
    probeStartSeconds,
    probeIntervalSeconds,
    sampleSeconds: sample,
    seed: number("seed", values.seed, 0, true),
    sampleHeap: values.heap === true,
    variants: variants as StatefulSetResyncVariant[],
    progress: (line) => io.err(`${line}\n`),
  });
  await emit(report, values, io);
  return 0;
}

async function emit(
  report: ScenarioReport,
  values: { json?: string | undefined; report?: string | undefined },
  io: ScenarioIo,
): Promise<void> {
  io.out(`${report.title}\n${report.source}\n\n${formatSummaryTable(report.summary)}\n`);
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`wrote ${values.json}\n`);
  }
  if (values.report !== undefined) {
    writeFileSync(values.report, renderHtmlReport(report));
    io.out(`wrote ${values.report}\n`);
  }
}
