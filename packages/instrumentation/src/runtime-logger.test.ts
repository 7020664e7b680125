import { describe, expect, it } from "vitest";
import { newRuntimeLogger, parseLogLevel, withFields } from "./runtime-logger.js";

function sink(isTTY = false) {
  const lines: string[] = [];
  return { lines, isTTY, write: (s: string) => lines.push(s) };
}

describe("newRuntimeLogger", () => {
  it("writes JSON lines with level, ts, logger, msg and the fields when the sink is not a terminal", () => {
    const s = sink();
    const log = newRuntimeLogger({ sink: s, name: "controller-runtime", now: () => 1_500 });
    log.log("error", "Reconciler error", { controller: "c", error: new Error("boom"), level: "x" });
    expect(s.lines).toHaveLength(1);
    expect(s.lines[0]?.endsWith("\n")).toBe(true);
    expect(JSON.parse(s.lines[0] ?? "")).toEqual({
      level: "error",
      ts: 1.5,
      logger: "controller-runtime",
      msg: "Reconciler error",
      controller: "c",
      error: "boom",
      "fields.level": "x",
    });
  });

  it("drops lines below the level: info by default, debug in development mode", () => {
    const prod = sink();
    newRuntimeLogger({ sink: prod }).log("debug", "hidden");
    expect(prod.lines).toEqual([]);
    const dev = sink();
    newRuntimeLogger({ sink: dev, development: true, now: () => 0 }).log("debug", "shown", { k: 1 });
    expect(dev.lines).toEqual(['1970-01-01T00:00:00.000Z\tDEBUG\tshown\t{"k":1}\n']);
  });

  it("writes readable lines to a terminal", () => {
    const s = sink(true);
    newRuntimeLogger({ sink: s, now: () => 0, name: "m" }).log("warn", "slow");
    expect(s.lines).toEqual(["1970-01-01T00:00:00.000Z\tWARN\tm\tslow\n"]);
  });

  it("never throws: unserialisable fields and a throwing sink", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const s = sink();
    newRuntimeLogger({ sink: s }).log("info", "x", { cyclic, big: 1n });
    expect(s.lines[0]).toContain('"msg":"x"');
    const broken = newRuntimeLogger({
      sink: {
        write: () => {
          throw new Error("EPIPE");
        },
      },
    });
    expect(() => broken.log("error", "lost")).not.toThrow();
  });

  it("rejects bad options by name", () => {
    expect(() => newRuntimeLogger({ level: "loud" as never })).toThrow(/level must be one of/);
    expect(() => newRuntimeLogger({ format: "xml" as never })).toThrow(/format must be json, text or auto/);
  });
});

describe("withFields and parseLogLevel", () => {
  it("adds fields to every line; the line's own fields win", () => {
    const s = sink();
    const log = withFields(newRuntimeLogger({ sink: s, now: () => 0 }), { controller: "c", name: "a" });
    log.log("info", "m", { name: "b" });
    log.log("info", "n");
    expect(s.lines.map((l) => JSON.parse(l))).toMatchObject([
      { controller: "c", name: "b" },
      { controller: "c", name: "a" },
    ]);
  });

  it("parses level names as flags spell them", () => {
    expect(parseLogLevel("DEBUG")).toBe("debug");
    expect(parseLogLevel("warning")).toBe("warn");
    expect(parseLogLevel("5")).toBeUndefined();
  });
});
