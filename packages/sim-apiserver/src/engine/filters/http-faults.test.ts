import { seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { HttpFaultInjector, type HttpRequestDescriptor, parseHttpFaultRule } from "./http-faults.js";

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
  it("a status fault's retryAfterSeconds is in the in-process error's details for any code", () => {
    const f = new HttpFaultInjector();
    f.add({ type: "status", code: 503, message: "busy", retryAfterSeconds: 5 });
    const s = f.faultFor(req("list"));
    expect(s?.type === "status" && (s.error as { status: unknown }).status).toMatchObject({
      code: 503,
      reason: "ServiceUnavailable",
      details: { retryAfterSeconds: 5 },
    });
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
  it.each([
    [403, "Forbidden"],
    [404, "NotFound"],
    [409, "Conflict"],
    [422, "Invalid"],
    [418, ""],
  ])("a status fault of code %i carries upstream's reason %j (NewGenericServerResponse)", (code, reason) => {
    const f = new HttpFaultInjector();
    f.add({ type: "status", code, message: "refused" });
    const s = f.faultFor(req("create"));
    expect(s?.type === "status" && (s.error as { status: unknown }).status).toMatchObject({ code, reason });
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
