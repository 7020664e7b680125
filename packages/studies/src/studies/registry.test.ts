import { describe, expect, it } from "vitest";
import { SCENARIO_NAMES, SCENARIO_USAGES } from "../cli-usage.js";
import { SCENARIO_COMMANDS } from "./registry.js";

describe("the scenario registry", () => {
  it("has a command and a usage text for every study name, and nothing else", () => {
    expect(Object.keys(SCENARIO_COMMANDS).sort()).toEqual([...SCENARIO_NAMES].sort());
    expect(Object.keys(SCENARIO_USAGES).sort()).toEqual([...SCENARIO_NAMES].sort());
  });

  it("documents every flag of each study in its usage text", () => {
    for (const name of SCENARIO_NAMES) {
      const usage = SCENARIO_USAGES[name] ?? "";
      for (const flag of Object.keys(SCENARIO_COMMANDS[name]?.options ?? {}))
        expect(usage, name).toContain(`--${flag}`);
    }
  });
});
