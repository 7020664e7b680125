import { describe, expect, it } from "vitest";
import * as cli from "./cli/index.js";
import * as engine from "./engine/index.js";
import * as http from "./http/index.js";
import * as pkg from "./index.js";

describe("package index", () => {
  it("names every value export of engine/, http/ and cli/ (a new export must be listed in src/index.ts)", () => {
    const expected = [...new Set([...Object.keys(engine), ...Object.keys(http), ...Object.keys(cli)])].sort();
    expect(Object.keys(pkg).sort()).toEqual(expected);
  });
});
