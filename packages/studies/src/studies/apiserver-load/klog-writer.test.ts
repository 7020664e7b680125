import { describe, expect, it } from "vitest";
import { ApiserverLogReader } from "../../analyze-logs/log-reader.js";
import { klogRecord, klogTextLogger } from "./klog-writer.js";

const T = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe("klog text records", () => {
  it("writes klog's header, InfoS fields and multi-line Info messages", () => {
    expect(klogRecord("info", T, "cacher (pods): 1 watchers terminated", { resource: "pods", n: 3, ok: true })).toBe(
      'I0102 03:04:05.678000       1 sim-apiserver.go:1] "cacher (pods): 1 watchers terminated" resource="pods" n=3 ok=true',
    );
    expect(klogRecord("warn", T, "plain")).toBe("W0102 03:04:05.678000       1 sim-apiserver.go:1] plain");
    const trace =
      'Trace[7]: "List" url:/api/v1/pods (02-Jan-2026 03:04:05.000) (total time: 678ms):\nTrace[7]: [678ms] [678ms] END';
    expect(klogRecord("info", T, trace).split("\n")[0]).toMatch(
      /^I0102 03:04:05\.678000 {7}1 trace\.go:236\] Trace\[7\]/,
    );
  });

  it("is read back by informer analyze-logs: traces as traces, the rest as other klog lines", () => {
    const lines: string[] = [];
    const logger = klogTextLogger(
      () => T,
      (t) => lines.push(...t.split("\n")),
    );
    logger.log("info", "watch cache re-initialized", { resource: "pods" });
    logger.log(
      "info",
      'Trace[7]: "List" audit-id:a1,url:/api/v1/pods,verb:LIST (02-Jan-2026 03:04:05.000) (total time: 678ms):\nTrace[7]: ---"Writing http response done" count:5 670ms (03:04:05.670)\nTrace[7]: [678ms] [8ms] END',
    );
    const r = new ApiserverLogReader();
    for (const l of lines) r.push("sim.log", l);
    const res = r.result();
    expect(res.malformedCount).toBe(0);
    expect(res.otherLines).toBe(1);
    expect(res.traces).toEqual([expect.objectContaining({ id: "7", name: "List", totalMs: 678, complete: true })]);
  });
});
