// `informer scenario list-memory`: the flags of study 002's memory parts and their checks.

import { listFlag, numberFlag } from "../../cli-flags.js";
import type { ScenarioCommandDefinition } from "../study-command-definition.js";
import { LIST_MEMORY_VARIANTS, runListMemory } from "./list-memory.js";

/** `informer scenario list-memory`; its usage is `LIST_MEMORY_USAGE` in cli-usage.ts. */
export const listMemoryCommand: ScenarioCommandDefinition = {
  options: {
    objects: { type: "string", default: "20000" },
    "page-size": { type: "string", default: "500" },
    repeats: { type: "string", default: "2" },
    variants: { type: "string", default: LIST_MEMORY_VARIANTS.join(",") },
    "no-snapshot": { type: "boolean", default: false },
  },
  run(values, common) {
    return runListMemory({
      objects: numberFlag(values, "objects", 1, true),
      pageSize: numberFlag(values, "page-size", 1, true),
      repeats: numberFlag(values, "repeats", 1, true),
      variants: listFlag(values, "variants", LIST_MEMORY_VARIANTS),
      snapshot: values["no-snapshot"] !== true,
      seed: common.seed,
      progress: common.progress,
    });
  },
};
