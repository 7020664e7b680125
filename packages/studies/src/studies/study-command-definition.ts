// What a study contributes to `informer scenario`: its own flags and how it runs from them.
import type { ParseArgsConfig } from "node:util";
import type { ScenarioFlagValues } from "../cli-flags.js";
import type { ScenarioReport } from "../report/study-report.js";

/** The flags every study accepts, parsed by `informer scenario` itself. */
export interface CommonScenarioFlags {
  /** `--seed`: the run is deterministic for it. */
  readonly seed: number;
  /** `--heap`: sample `process.memoryUsage().heapUsed` too. */
  readonly sampleHeap: boolean;
  /**
   * `--real-time`: run on the real clock, over HTTP where the study has a server, instead of in virtual time (only
   * passed true to a study whose definition declares `realTime: true`).
   */
  readonly realTime: boolean;
  /** Writes one progress line (to stderr on the command line). */
  readonly progress: (line: string) => void;
}

/**
 * One study as a command: the flags it adds to the common ones (`parseArgs` option configs with their
 * defaults) and `run`, which validates them (a bad value is a `UsageError` naming the flag) and runs the study.
 */
export interface ScenarioCommandDefinition {
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  /** True when the study honours `--real-time`; `informer scenario` refuses the flag for the others. */
  readonly realTime?: boolean;
  run(values: ScenarioFlagValues, common: CommonScenarioFlags): Promise<ScenarioReport>;
}
