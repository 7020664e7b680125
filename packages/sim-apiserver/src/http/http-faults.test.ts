import { seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { createAdminHandler } from "./admin.js";
import type { HttpRequestDescriptor } from "./backend.js";
import { HttpFaultInjector, parseHttpFaultRule } from "./http-faults.js";

const req = (verb: string, resource = "configmaps"): HttpRequestDescriptor => ({
  verb,
  group: "",
  version: "v1",
  resource,
  namespace: "default",
  name: "",
  userAgent: "kubectl/v1.33",
});

describe("HttpFaultInjector", () => {
  it("matches by verb/resource, fires every n-th, at most count times", () => {
    const f = new HttpFaultInjector();
    f.add({ type: "apf-429", verbs: ["list"], resource: "configmaps", every: 2, count: 2, retryAfterSeconds: 4 });
    const fired = Array.from({ length: 8 }, () => f.faultFor(req("list")));
    expect(fired.map((x) => x !== undefined)).toEqual([false, true, false, true, false, false, false, false]);
    expect(fired[1]).toEqual({ type: "apf-429", retryAfterSeconds: 4 });
    expect(f.faultFor(req("watch"))).toBeUndefined();
    expect(f.faultFor(req("list", "secrets"))).toBeUndefined();
    expect(f.list()[0]).toMatchObject({ id: 1, matched: 8, fired: 2 });
  });
  it("status faults carry real Status errors; truncate only applies to watches", () => {
    const f = new HttpFaultInjector();
    f.add({ type: "truncate-watch", afterEvents: 3 });
    f.add({ type: "status", code: 504, message: "slow", retryAfterSeconds: 1 });
    expect(f.faultFor(req("watch"))).toEqual({ type: "truncate-watch", afterEvents: 3 });
    const s = f.faultFor(req("list"));
    expect(s?.type).toBe("status");
    expect(s?.type === "status" && (s.error as { status: unknown }).status).toMatchObject({
      code: 504,
      reason: "Timeout",
      message: "Timeout: slow",
      details: { retryAfterSeconds: 1 },
    });
  });
  it("probability draws from the injected Rand (same seed, same decisions)", () => {
    const run = () => {
      const f = new HttpFaultInjector(seededRand(42));
      f.add({ type: "drop-connection", probability: 0.3 });
      return Array.from({ length: 50 }, () => f.faultFor(req("get")) !== undefined);
    };
    const a = run();
    expect(run()).toEqual(a);
    expect(a.filter(Boolean).length).toBeGreaterThan(0);
    expect(a.filter(Boolean).length).toBeLessThan(50);
  });
  it("rejects malformed rules naming the field", () => {
    expect(() => parseHttpFaultRule({ type: "meteor" })).toThrow(/type must be one of/);
    expect(() => parseHttpFaultRule({ type: "status", code: 200 })).toThrow(
      "fault: code must be a number in [400, 599], got 200",
    );
    expect(() => parseHttpFaultRule({ type: "apf-429", verbs: "list" })).toThrow(
      "fault: verbs must be an array of strings",
    );
    expect(() => parseHttpFaultRule([])).toThrow("fault: expected a JSON object");
  });
});

describe("admin handler (/_sim)", () => {
  it("faults: add, list, delete; engine endpoints 404 without hooks", async () => {
    const f = new HttpFaultInjector();
    const h = createAdminHandler(f);
    const q = new URLSearchParams();
    expect(await h("", "GET", undefined, q)).toEqual({ body: { endpoints: ["/_sim/faults"] } });
    expect(await h("faults", "POST", { type: "apf-429" }, q)).toEqual({ status: 201, body: { id: 1 } });
    expect(await h("faults", "POST", { type: "nope" }, q)).toMatchObject({ status: 400 });
    expect(((await h("faults", "GET", undefined, q)).body as { faults: unknown[] }).faults).toHaveLength(1);
    expect(await h("faults", "DELETE", undefined, new URLSearchParams("id=1"))).toEqual({ body: { removed: 1 } });
    expect(await h("compact", "POST", {}, q)).toMatchObject({ status: 404 });
    expect(await h("faults", "PUT", {}, q)).toMatchObject({ status: 405 });
  });
  it("engine hooks are called with the body", async () => {
    const calls: unknown[] = [];
    const h = createAdminHandler(new HttpFaultInjector(), {
      compact: (b) => {
        calls.push(["compact", b]);
        return { compacted: 5 };
      },
      reinit: (b) => {
        calls.push(["reinit", b]);
        throw new Error("unknown resource widgets");
      },
      accounting: () => ({ requests: 3 }),
    });
    const q = new URLSearchParams();
    expect(await h("compact", "POST", { resourceVersion: "5" }, q)).toEqual({ body: { compacted: 5 } });
    expect(await h("reinit", "POST", { resource: "widgets" }, q)).toEqual({
      status: 400,
      body: { error: "unknown resource widgets" },
    });
    expect(await h("accounting", "GET", undefined, q)).toEqual({ body: { requests: 3 } });
    expect(calls).toEqual([
      ["compact", { resourceVersion: "5" }],
      ["reinit", { resource: "widgets" }],
    ]);
  });
});
