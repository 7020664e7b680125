// `informer scenario watch-rv0-churn`: the flags of study 002's RV "0" watch problem and their checks.
import { UsageError } from "@informer-ts/apimachinery";
import { listFlag, numberFlag, type ScenarioFlagValues } from "../../cli-flags.js";
import type { ScenarioCommandDefinition } from "../study-command-definition.js";
import { runWatchRv0Churn, WATCH_RV0_APPROACHES, WATCH_RV0_DEFAULT_SWEEP } from "./watch-rv0-churn.js";

/** The comma-separated positive numbers given to `--<name>`; a bad entry is a {@link UsageError} naming it. */
function numberListFlag(values: ScenarioFlagValues, name: string, integer: boolean): number[] {
  const raw = values[name];
  const text = typeof raw === "string" ? raw : "";
  return text.split(",").map((entry) => {
    const v = Number(entry.trim());
    if (entry.trim() === "" || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v)))
      throw new UsageError(
        `--${name}: "${entry.trim()}" is not ${integer ? "an integer" : "a number"} > 0 (in "${text}")`,
      );
    return v;
  });
}

/** `informer scenario watch-rv0-churn`; its usage is `WATCH_RV0_CHURN_USAGE` in cli-usage.ts. */
export const watchRv0ChurnCommand: ScenarioCommandDefinition = {
  realTime: true,
  options: {
    objects: { type: "string", default: "10000" },
    writes: { type: "string", default: "50" },
    consumer: { type: "string", default: "1200" },
    duration: { type: "string", default: "30" },
    warmup: { type: "string", default: "80" },
    sample: { type: "string", default: "0.5" },
    approaches: { type: "string", default: WATCH_RV0_APPROACHES.join(",") },
    "sweep-objects": { type: "string", default: WATCH_RV0_DEFAULT_SWEEP.objects.join(",") },
    "sweep-writes": { type: "string", default: WATCH_RV0_DEFAULT_SWEEP.writesPerSecond.join(",") },
    "sweep-consumer": { type: "string", default: WATCH_RV0_DEFAULT_SWEEP.consumerPerSecond.join(",") },
    "no-sweep": { type: "boolean", default: false },
  },
  run(values, common) {
    const sample = numberFlag(values, "sample", 0.001);
    const durationSeconds = numberFlag(values, "duration", sample);
    return runWatchRv0Churn({
      objects: numberFlag(values, "objects", 1, true),
      writesPerSecond: numberFlag(values, "writes", 0.001),
      consumerPerSecond: numberFlag(values, "consumer", 0.001),
      durationSeconds,
      warmupSeconds: numberFlag(values, "warmup", 0),
      realTime: common.realTime,
      sampleSeconds: sample,
      approaches: listFlag(values, "approaches", WATCH_RV0_APPROACHES),
      sweep:
        values["no-sweep"] === true
          ? false
          : {
              objects: numberListFlag(values, "sweep-objects", true),
              writesPerSecond: numberListFlag(values, "sweep-writes", false),
              consumerPerSecond: numberListFlag(values, "sweep-consumer", false),
            },
      seed: common.seed,
      sampleHeap: common.sampleHeap,
      progress: common.progress,
    });
  },
};
