import { describe, expect, it } from "vitest";
import { handlerSteps, newRequestTrace, requestScope } from "./request-trace.js";

describe("newRequestTrace", () => {
  it("carries kube-apiserver's trace fields in upstream's order", () => {
    const t = newRequestTrace(
      {
        verb: "list",
        resource: "pods",
        namespace: "",
        name: "",
        path: "/api/v1/pods",
        userAgent: "kubectl/v1.32.4",
        auditID: "sim-7",
      },
      0,
    )!;
    t.step(handlerSteps("list").before, 0);
    expect(t.logIfLong({ endMs: 600, thresholdMs: 500, traceNum: 3 })!.split("\n")[0]).toBe(
      'Trace[3]: "List" accept:unknown,audit-id:sim-7,client:unknown,protocol:in-process,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:kubectl/v1.32.4,verb:LIST (01-Jan-1970 00:00:00.000) (total time: 600ms):',
    );
  });

  it("names the trace by handler, cuts long user agents, and traces no watch", () => {
    const base = { resource: "configmaps", namespace: "d", name: "x", path: "/p", auditID: "a" };
    const long = "u".repeat(1100);
    const t = newRequestTrace({ ...base, verb: "apply", userAgent: long }, 0)!;
    expect(t.name).toBe("Patch");
    const ua = t.fields.find((f) => f.key === "user-agent")!.value as string;
    expect(ua).toBe(`${"u".repeat(1024)}...TRUNCATED`);
    expect(t.fields.find((f) => f.key === "verb")!.value).toBe("APPLY");
    expect(newRequestTrace({ ...base, verb: "watch", userAgent: "k" }, 0)).toBeUndefined();
  });

  it("scopes as metrics.CleanScope does", () => {
    expect(requestScope("get", "d", "x")).toBe("resource");
    expect(requestScope("create", "d", "")).toBe("resource");
    expect(requestScope("list", "d", "")).toBe("namespace");
    expect(requestScope("list", "", "")).toBe("cluster");
  });
});
