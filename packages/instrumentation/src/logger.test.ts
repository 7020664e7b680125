import { afterEach, describe, expect, it, vi } from "vitest";
import { formatLogLine, newConsoleLogger, newJsonLineLogger, newLineLogger, safeLog, silentLogger } from "./logger.js";

afterEach(() => vi.restoreAllMocks());

describe("Logger", () => {
  it("formats a line with the level letter, component, message and quoted fields", () => {
    expect(formatLogLine("reflector", "warn", "Failed to watch", { type: "pods", err: new Error("403"), n: 2 })).toBe(
      'W reflector: Failed to watch type="pods" err="403" n="2"',
    );
    expect(formatLogLine("x", "debug", "m")).toBe("D x: m");
  });

  it("the console logger drops lines below its minimum level", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const logger = newConsoleLogger("c");
    logger.log("debug", "d");
    logger.log("info", "i");
    logger.log("warn", "w");
    logger.log("error", "e", { k: "v" });
    expect(log).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith("W c: w");
    expect(error).toHaveBeenCalledWith('E c: e k="v"');
    newConsoleLogger("c", "debug").log("info", "shown");
    expect(log).toHaveBeenCalledWith("I c: shown");
  });

  it("the line logger writes to any sink; safeLog swallows a throwing logger", () => {
    const lines: string[] = [];
    const logger = newLineLogger("sim", (l) => lines.push(l), "info");
    logger.log("debug", "hidden");
    logger.log("info", "GET /api", { code: 200 });
    expect(lines).toEqual(['I sim: GET /api code="200"']);
    const broken = {
      log() {
        throw new Error("broken");
      },
    };
    expect(() => safeLog(broken, "error", "x")).not.toThrow();
    expect(() => silentLogger.log("error", "x")).not.toThrow();
  });

  it("the JSON line logger writes one object per line with level, msg and the fields", () => {
    const lines: string[] = [];
    const logger = newJsonLineLogger((l) => lines.push(l), "info");
    logger.log("debug", "hidden");
    logger.log("info", "HTTP", { verb: "list", code: 200, err: new Error("x") });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { level: "info", msg: "HTTP", verb: "list", code: 200, err: "x" },
    ]);
  });
});
