import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { ANALYZE_LOGS_USAGE, helpFor, INFORMER_COMMANDS } from "../cli-usage.js";
import { analyzeLogFiles, analyzeLogsCommand } from "./analyze-logs-command.js";
import { AUDIT_LINES, HTTPLOG_LINES, MALFORMED_LINES, OLD_TRACE_LINES } from "./log-samples.test-util.js";

const dir = mkdtempSync(join(tmpdir(), "analyze-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, lines: readonly string[]): string {
  const p = join(dir, name);
  writeFileSync(p, `${lines.join("\n")}\n`);
  return p;
}

function io() {
  const o = { out: "", err: "" };
  return { o, io: { out: (t: string) => (o.out += t), err: (t: string) => (o.err += t) } };
}

describe("informer analyze-logs", () => {
  it("reads several files, prints the tables, writes --json and --report", async () => {
    const a = file("apiserver.log", [...HTTPLOG_LINES, ...OLD_TRACE_LINES]);
    const b = file("audit.log", AUDIT_LINES);
    const json = join(dir, "out.json");
    const html = join(dir, "out.html");
    const { o, io: w } = io();
    expect(await analyzeLogsCommand([a, b, "--json", json, "--report", html, "--top", "5"], w)).toBe(0);
    expect(o.out).toContain("Requests by user agent");
    expect(o.out).toContain("Reads by shape and served-from");
    expect(o.out).toContain('Trace[1234567] "List etcd3" 1.02 s');
    expect(o.err).toBe("");
    const parsed = JSON.parse(readFileSync(json, "utf8"));
    expect(parsed.requests).toBe(8);
    expect(parsed.top).toHaveLength(5);
    const page = readFileSync(html, "utf8");
    for (const id of ["by-user-agent", "by-verb", "by-shape", "slow-traces"])
      expect(page).toContain(`data-chart="${id}"`);
    expect(page).not.toMatch(/<script|<link|<img|\ssrc=|\shref=/);
    // no line says what a request cost: the cost chart is the measured time serving each user agent, not CPU
    expect(page).toContain("Share of requests and of time serving them, by user agent");
    expect(page).not.toContain("apiserver CPU (modelled");
  });

  it("keeps going past malformed lines, names them and exits 1; reads stdin for -", async () => {
    const bad = file("bad.log", MALFORMED_LINES);
    const { o, io: w } = io();
    const html = join(dir, "bad.html");
    expect(await analyzeLogsCommand([bad, "--report", html], w)).toBe(1);
    expect(o.err).toContain(`6 malformed lines, the first at ${bad}:1: invalid JSON`);
    // No trace: no empty chart, and the section says there is none.
    expect(readFileSync(html, "utf8")).not.toContain('data-chart="slow-traces"');
    expect(readFileSync(html, "utf8")).toContain("none: no Trace[…] block in the input");
    expect(o.out).toContain("Malformed lines: 6");
    expect(o.out).toContain(`${bad}:4: not a kube-apiserver log line`);
    expect(o.err).toContain("no request and no trace found");
    const stdin = new PassThrough();
    stdin.end(`${HTTPLOG_LINES[0]}\n`);
    const a = await analyzeLogFiles(["-"], { stdin });
    expect(a.requests).toBe(1);
    expect(a.files).toEqual(["-"]);
  });

  it("names a missing file, and rejects bad flags with a UsageError", async () => {
    await expect(analyzeLogFiles([join(dir, "nope.log")])).rejects.toThrow(/cannot read .*nope\.log: no such file/);
    const { io: w } = io();
    await expect(analyzeLogsCommand([], w)).rejects.toThrow(/no log file given/);
    await expect(analyzeLogsCommand(["x.log", "--top", "0"], w)).rejects.toThrow(/--top must be an integer ≥ 1/);
    await expect(analyzeLogsCommand(["x.log", "--slow", "1"], w)).rejects.toThrow(/unknown option --slow/);
    await expect(analyzeLogsCommand(["x.log", "--kube-version", "1.9"], w)).rejects.toThrow(
      /--kube-version: kube version must be a release from 1\.18 to 1\.34/,
    );
  });

  it("is a command of the CLI with its own help", () => {
    expect(INFORMER_COMMANDS).toContain("analyze-logs");
    expect(helpFor(["analyze-logs", "--help"])).toBe(ANALYZE_LOGS_USAGE);
    expect(helpFor(["help", "analyze-logs"])).toBe(ANALYZE_LOGS_USAGE);
    for (const flag of ["--json", "--report", "--top", "--slow-ms", "--kube-version"])
      expect(ANALYZE_LOGS_USAGE).toContain(flag);
  });
});
