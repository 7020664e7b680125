import { describe, expect, it } from "vitest";
import { auditLine, RequestAccounting, type RequestRecord } from "./accounting.js";
import { requestCost } from "./cost-model.js";

const base: RequestRecord = {
  verb: "list",
  group: "",
  version: "v1",
  resource: "configmaps",
  userAgent: "kubelet/v1.28.0",
  code: 200,
  servedFrom: "storage",
  latencyMs: 812,
  bytes: 2048,
  namespace: "default",
  requestURI: "/api/v1/namespaces/default/configmaps?limit=500",
  receivedAt: Date.UTC(2026, 10, 25, 20, 0, 0, 0),
};

describe("auditLine", () => {
  it("writes an audit.k8s.io/v1 Event with the record's audit ID, source IP and subresource", () => {
    const e = JSON.parse(
      auditLine({ ...base, auditID: "sim-9", sourceIP: "10.0.0.7", subresource: "status", name: "x" }, 1),
    );
    expect(e).toMatchObject({
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "Metadata",
      auditID: "sim-9",
      stage: "ResponseComplete",
      requestURI: "/api/v1/namespaces/default/configmaps?limit=500",
      verb: "list",
      sourceIPs: ["10.0.0.7"],
      userAgent: "kubelet/v1.28.0",
      objectRef: { resource: "configmaps", namespace: "default", name: "x", apiVersion: "v1", subresource: "status" },
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: "2026-11-25T20:00:00.000000Z",
      stageTimestamp: "2026-11-25T20:00:00.812000Z",
    });
    expect(e.annotations["sim.informer-ts.dev/bytes"]).toBe("2048");
  });

  it("adds the cost model's CPU and seats, and kube-apiserver's latency annotations above 500 ms", () => {
    const cost = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 20_000,
      bytesScanned: 20_000 * 2048,
      responseBytes: 2048,
    });
    const slow = JSON.parse(auditLine({ ...base, cost, latencyMs: cost.latencyMs + 300 }, 1)).annotations;
    expect(slow["sim.informer-ts.dev/cpu-ms"]).toBe(String(Math.round(cost.cpuMs * 1e6) / 1e6));
    expect(slow["sim.informer-ts.dev/apf-seats"]).toBe("1");
    expect(slow["apiserver.latency.k8s.io/etcd"]).toBe("1.05ms");
    expect(slow["apiserver.latency.k8s.io/decode-response-object"]).toBe("720ms");
    expect(slow["apiserver.latency.k8s.io/total"]).toMatch(/^1\.0\d+s$/);
    const fast = JSON.parse(auditLine({ ...base, cost, latencyMs: 499 }, 1)).annotations;
    expect(Object.keys(fast).some((k) => k.startsWith("apiserver.latency"))).toBe(false);
  });
});

describe("RequestAccounting", () => {
  it("sums CPU and seat-seconds per series and groups CPU-seconds by a dimension", () => {
    const a = new RequestAccounting();
    const c1 = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 1000,
      bytesScanned: 0,
      responseBytes: 0,
    });
    const c2 = requestCost({ verb: "list", servedFrom: "cache", keysScanned: 1000, bytesScanned: 0, responseBytes: 0 });
    a.record({ ...base, cost: c1 });
    a.record({ ...base, cost: c1 });
    a.record({ ...base, servedFrom: "cache", userAgent: "kubectl", cost: c2 });
    a.record({ ...base, servedFrom: "cache", userAgent: "kubectl" }); // model off: counted, no CPU
    const by = a.cpuSecondsBy("servedFrom");
    expect(by.get("storage")).toBeCloseTo((2 * c1.cpuMs) / 1000, 12);
    expect(by.get("cache")).toBeCloseTo(c2.cpuMs / 1000, 12);
    expect([...a.cpuSecondsBy("userAgent", { servedFrom: "cache" }).keys()]).toEqual(["kubectl"]);
    const row = a.rows().find((r) => r.servedFrom === "storage")!;
    expect(row.seatSeconds).toBeCloseTo((2 * c1.latencyMs) / 1000, 12);
  });

  it("numbers audit lines from one sequence, shared with nextAuditID", () => {
    const a = new RequestAccounting();
    const lines: string[] = [];
    a.auditLog = (l) => lines.push(l);
    a.record(base);
    const id = a.nextAuditID();
    a.record({ ...base, auditID: id });
    a.record(base);
    expect(lines.map((l) => JSON.parse(l).auditID)).toEqual(["sim-1", "sim-2", "sim-3"]);
  });
});
