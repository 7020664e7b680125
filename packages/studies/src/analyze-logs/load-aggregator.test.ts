import { describe, expect, it } from "vitest";
import { aggregateLoad, userAgentProduct } from "./load-aggregator.js";
import { formatLoadAnalysis } from "./load-table.js";
import { ApiserverLogReader } from "./log-reader.js";
import { AUDIT_ID_SLOW_LIST, AUDIT_LINES, HTTPLOG_LINES, MALFORMED_LINES } from "./log-samples.test-util.js";

function analyse(top = 10) {
  const r = new ApiserverLogReader();
  for (const l of HTTPLOG_LINES) r.push("apiserver.log", l);
  for (const l of AUDIT_LINES) r.push("audit.log", l);
  for (const l of MALFORMED_LINES) r.push("bad.log", l);
  return aggregateLoad(["apiserver.log", "audit.log", "bad.log"], r.result(), { top });
}

describe("aggregateLoad", () => {
  it("attributes requests by user agent, verb, resource, served-from and shape, largest first", () => {
    const a = analyse();
    expect(a.requests).toBe(8);
    expect(a.byUserAgent.map((g) => [g.key[0], g.count])).toEqual([
      ["kubelet/v1.28.3", 4],
      ["kube-controller-manager/v1.28.3", 2],
      ["kubectl/v1.32.0", 1],
      ["test-operator/v0.0.0", 1],
    ]);
    expect(a.byVerb.find((g) => g.key[0] === "get")?.count).toBe(3);
    expect(a.byResource.map((g) => g.key[0])).toEqual(["configmaps", "pods", "events"]);
    // kube-apiserver's own lines do not say where a read was served from; the slow list's trace does (etcd3 step)
    expect(a.servedFromFromTraces).toBe(1);
    expect(a.byServedFrom).toEqual([
      expect.objectContaining({ key: ["?"], count: 5 }),
      expect.objectContaining({ key: ["—"], count: 2 }),
      expect.objectContaining({ key: ["storage"], count: 1 }),
    ]);
    expect(a.byShape.map((g) => g.key[0])).toContain('list RV="" limit selector');
    // a watch's latency is its lifetime: left out of the latency figures
    const kcm = a.byUserAgent.find((g) => g.key[0]?.startsWith("kube-controller-manager"));
    expect(kcm?.latencyMsMax).toBeCloseTo(812.345678, 6);
    // the 404 is an error
    expect(a.byUserAgent[0]?.errors).toBe(1);
    expect(a.top).toHaveLength(6);
    expect(analyse(2).top).toHaveLength(2);
  });

  it("lists slow traces with their steps, linked to their request by audit ID, and the slowest requests", () => {
    const a = analyse();
    expect(a.traceCount).toBe(1);
    expect(a.slowTraces[0]?.trace.totalMs).toBe(812);
    expect(a.slowTraces[0]?.request?.auditId).toBe(AUDIT_ID_SLOW_LIST);
    expect(a.slowRequests.map((r) => r.latencyMs)).toEqual([1500, expect.closeTo(812.345678, 6)]);
    expect(a.malformedCount).toBe(6);
    const text = formatLoadAnalysis(a);
    expect(text).toMatch(/^3 files, \d+ lines: 8 requests \(httplog 7, audit 2; 1 logged by both httplog and audit/);
    expect(text).toContain('Trace[1988148393] "List" 812 ms  kube-controller-manager/v1.28.3');
    expect(text).toContain("[List(recursive=true) etcd3");
    expect(text).toContain("- Writing http response done count:5000  170 ms");
    expect(text).toContain("Malformed lines: 6");
    expect(text).toContain('bad.log:2: httplog latency "fast" is not a Go duration');
  });

  it("shortens user agents to product/version", () => {
    expect(userAgentProduct("kubelet/v1.28.3 (linux/amd64) kubernetes/a8a1abc")).toBe("kubelet/v1.28.3");
    expect(userAgentProduct("")).toBe("(none)");
    expect(userAgentProduct("curl/8.0")).toBe("curl/8.0");
  });
});
