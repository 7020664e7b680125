import { describe, expect, it } from "vitest";
import { ApiserverLogReader, MALFORMED_KEPT } from "./log-reader.js";
import {
  AUDIT_ID_SLOW_LIST,
  AUDIT_LINES,
  HTTPLOG_LINES,
  MALFORMED_LINES,
  OLD_TRACE_LINES,
  WRAPPED_LINES,
} from "./log-samples.test-util.js";

function read(files: Record<string, readonly string[]>) {
  const r = new ApiserverLogReader();
  for (const [file, lines] of Object.entries(files)) for (const l of lines) r.push(file, l);
  return r.result();
}

describe("ApiserverLogReader", () => {
  it("reads kube-apiserver httplog lines: verb, URI, resource, shape, latency, user agent, APF, status", () => {
    const logs = read({ "apiserver.log": HTTPLOG_LINES });
    expect(logs.malformedCount).toBe(0);
    expect(logs.requests).toHaveLength(7);
    const [list, get, get0, watch, kubectl, gone, post] = logs.requests;
    expect(list).toMatchObject({
      format: "httplog",
      verb: "list",
      resource: "pods",
      shape: 'list RV="" limit',
      code: 200,
      auditId: AUDIT_ID_SLOW_LIST,
      sourceIP: "10.0.0.12:51234",
      priorityLevel: "workload-high",
      seats: 10,
      servedFrom: "",
      line: 1,
    });
    expect(list?.latencyMs).toBeCloseTo(812.345678, 6);
    expect(list?.userAgent).toMatch(/^kube-controller-manager\/v1\.28\.3 /);
    expect(get).toMatchObject({ verb: "get", resource: "configmaps", namespace: "default", name: "app-config" });
    expect(get?.shape).toBe('get RV=""');
    expect(get0?.shape).toBe('get RV="0"');
    expect(get0?.latencyMs).toBeCloseTo(0.35, 9);
    expect(watch).toMatchObject({ verb: "watch", shape: "watch RV=N" });
    expect(watch?.latencyMs).toBeCloseTo(474_000.131, 3);
    expect(kubectl).toMatchObject({ shape: 'list RV="" limit selector', latencyMs: 1500 });
    // the statusStack=< … > lines belong to the 404 record, not malformed
    expect(gone).toMatchObject({ code: 404, line: 10 });
    expect(post).toMatchObject({ verb: "create", resource: "events", code: 201, line: 14 });
    expect(logs.otherLines).toBe(1); // the cacher's klog line
  });

  it("reads trace blocks (modern: nested traces, --- steps; older: [elapsed] [step]) interleaved with other lines", () => {
    const logs = read({ "a.log": HTTPLOG_LINES, "b.log": OLD_TRACE_LINES });
    expect(logs.traces).toHaveLength(2);
    const [modern, old] = logs.traces;
    expect(modern).toMatchObject({
      id: "1988148393",
      name: "List",
      totalMs: 812,
      complete: true,
      file: "a.log",
      line: 2,
    });
    expect(modern?.fields["audit-id"]).toBe(AUDIT_ID_SLOW_LIST);
    expect(modern?.fields.accept).toBe("application/json, */*");
    expect(modern?.fields["user-agent"]).toMatch(/^kube-controller-manager\/v1\.28\.3 \(linux\/amd64\)/);
    expect(modern?.started).toBe("25-Nov-2026 20:25:00.123");
    expect(modern?.steps).toEqual([
      {
        depth: 0,
        message: "List(recursive=true) etcd3",
        fields: `audit-id:${AUDIT_ID_SLOW_LIST},key:/pods,resourceVersion:,resourceVersionMatch:,limit:500,continue:`,
        durationMs: 640,
        nested: true,
      },
      { depth: 0, message: "Writing http response done", fields: "count:5000", durationMs: 170, nested: false },
    ]);
    expect(old).toMatchObject({ name: "List etcd3", totalMs: 1020, complete: true, file: "b.log", line: 1 });
    expect(old?.steps).toEqual([
      { depth: 0, message: "Listed items from etcd", fields: "", durationMs: 1019, nested: false },
    ]);
  });

  it("reads audit events, skips non-final stages, and merges a request logged by both httplog and audit", () => {
    const alone = read({ "audit.log": AUDIT_LINES });
    expect(alone.skippedAuditStages).toBe(1);
    expect(alone.requests).toHaveLength(2);
    const update = alone.requests[1];
    expect(update).toMatchObject({
      format: "audit",
      verb: "update",
      resource: "configmaps",
      namespace: "xxx",
      name: "test-operator",
      code: 200,
      user: "user1",
      sourceIP: "11.11.11.100",
      shape: "update",
    });
    expect(update?.latencyMs).toBeCloseTo(4.5, 6);
    const both = read({ "apiserver.log": HTTPLOG_LINES, "audit.log": AUDIT_LINES });
    expect(both.merged).toBe(1);
    expect(both.requests).toHaveLength(8);
    expect(both.byFormat).toEqual({ httplog: 7, audit: 2 });
    const slow = both.requests.find((r) => r.auditId === AUDIT_ID_SLOW_LIST);
    expect(slow).toMatchObject({ format: "audit", user: "system:serviceaccount:kube-system:pod-garbage-collector" });
    expect(slow?.latencyMs).toBeCloseTo(812.345678, 6); // the httplog's, finer than the audit timestamps
    expect(slow?.seats).toBe(10);
  });

  it("reads klog JSON logging, CRI- and docker-wrapped lines and the simulator's own httplog", () => {
    const logs = read({ "w.log": WRAPPED_LINES });
    expect(logs.malformedCount).toBe(0);
    expect(logs.requests.map((r) => [r.format, r.verb, r.resource, r.shape])).toEqual([
      ["httplog", "list", "statefulsets.apps", 'list RV="" limit'],
      ["httplog", "get", "nodes", 'get RV=""'],
      ["httplog", "deletecollection", "pods", "deletecollection"],
      ["sim-httplog", "list", "configmaps", 'list RV="0"'],
    ]);
    expect(logs.traces).toEqual([
      expect.objectContaining({ id: "77", name: "Get", totalMs: 600, complete: true, line: 2 }),
    ]);
    expect(logs.traces[0]?.steps[0]).toMatchObject({ message: "About to write a response", durationMs: 590 });
  });

  it("counts malformed lines and names the first few with file, line and reason; never throws", () => {
    const logs = read({ "bad.log": ["", ...MALFORMED_LINES] });
    expect(logs.requests).toHaveLength(0);
    expect(logs.malformedCount).toBe(6);
    expect(logs.malformed.map((m) => [m.line, m.reason])).toEqual([
      [2, expect.stringMatching(/^invalid JSON/)],
      [3, 'httplog latency "fast" is not a Go duration'],
      [4, "Trace[42] step without its header line"],
      [5, "not a kube-apiserver log line (no klog header, not JSON, not a Trace line)"],
      [6, 'httplog line without verb="…"'],
      [7, "audit event without a verb"],
    ]);
    const many = read({ "junk.log": Array.from({ length: 25 }, (_, i) => `junk ${i}`) });
    expect(many.malformedCount).toBe(25);
    expect(many.malformed).toHaveLength(MALFORMED_KEPT);
    expect(many.malformed[9]).toMatchObject({ line: 10, text: "junk 9" });
  });

  it("returns a trace cut before its END as incomplete", () => {
    const logs = read({ "cut.log": HTTPLOG_LINES.slice(0, 3) });
    expect(logs.traces).toEqual([expect.objectContaining({ id: "1988148393", complete: false })]);
  });
});
