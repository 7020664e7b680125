import { describe, expect, it } from "vitest";
import { STUDY_NAMES, STUDY_USAGES } from "../cli-usage.js";
import { STUDY_COMMANDS } from "./registry.js";

describe("the study registry", () => {
  it("has a command and a usage text for every study name, and nothing else", () => {
    expect(Object.keys(STUDY_COMMANDS).sort()).toEqual([...STUDY_NAMES].sort());
    expect(Object.keys(STUDY_USAGES).sort()).toEqual([...STUDY_NAMES].sort());
  });

  it("documents every flag of each study in its usage text", () => {
    for (const name of STUDY_NAMES) {
      const usage = STUDY_USAGES[name] ?? "";
      for (const flag of Object.keys(STUDY_COMMANDS[name]?.options ?? {})) expect(usage, name).toContain(`--${flag}`);
    }
  });
});
