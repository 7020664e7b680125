// `informer scenario <name> [flags]`: parses a study's flags, runs it, prints its progress and summary, writes
// --json and --report.
import { writeFileSync } from "node:fs";
import { didYouMean, parseCommandLine, UsageError } from "@informer-ts/apimachinery";
import { numberFlag, outputFileFlag } from "./cli-flags.js";
import { SCENARIO_NAMES, SCENARIO_USAGE } from "./cli-usage.js";
import { renderHtmlReport } from "./report/html-report.js";
import { describeRun, formatSummaryTable, type ScenarioReport } from "./report/study-report.js";
import { SCENARIO_COMMANDS } from "./studies/registry.js";

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
  "real-time": { type: "boolean", default: false },
} as const;

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
  const command = SCENARIO_COMMANDS[name];
  if (!SCENARIO_NAMES.includes(name) || command === undefined)
    throw new UsageError(`unknown scenario "${name}"${didYouMean(name, SCENARIO_NAMES)}`);
  const { values } = parseCommandLine({ args: rest, options: { ...common, ...command.options } });
  if (values["real-time"] === true && command.realTime !== true)
    throw new UsageError(
      `scenario ${name} does not support --real-time (it runs in virtual time, or always on real clocks): drop the flag`,
    );
  // Checked before the run: a study can take minutes, and a typo in an output path must not cost it.
  outputFileFlag(values, "json");
  outputFileFlag(values, "report");
  const report = await command.run(values, {
    seed: numberFlag(values, "seed", 0, true),
    sampleHeap: values.heap === true,
    realTime: values["real-time"] === true,
    progress: (line) => io.err(`${line}\n`),
  });
  await emit(report, values, io);
  return 0;
}

async function emit(
  report: ScenarioReport,
  values: { readonly [flag: string]: string | boolean | undefined },
  io: ScenarioIo,
): Promise<void> {
  io.out(`${report.title}\n${describeRun(report)}\n${report.source}\n\n${formatSummaryTable(report.summary)}\n`);
  if (typeof values.json === "string") {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    io.out(`wrote ${values.json}\n`);
  }
  if (typeof values.report === "string") {
    writeFileSync(values.report, renderHtmlReport(report));
    io.out(`wrote ${values.report}\n`);
  }
}
