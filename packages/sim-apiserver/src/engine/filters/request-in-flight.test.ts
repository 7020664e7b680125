// The in-process face's requests in flight: a request is there from its receipt until its answer, an open watch
// until it closes (stopped, its signal aborted, or ended by the engine), and the accounting is unchanged by it.
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

function setup() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const engine = new SimApiServer({ clock, rand: seededRand(3), controllers: false, compactionIntervalMs: 0 });
  return { clock, engine };
}

describe("SimApiServer.inFlightRequests (in-process)", () => {
  it("an open watch is in flight with its fields until stopped; the accounting is unchanged", async () => {
    const { clock, engine } = setup();
    expect(engine.inFlightRequests()).toEqual([]);
    await clock.step(1234);
    const w = await engine.watch("configmaps", "default", { resourceVersion: "0" }, { userAgent: "kit-test/1" });
    expect(engine.inFlightRequests()).toEqual([
      {
        verb: "watch",
        group: "",
        version: "v1",
        resource: "configmaps",
        namespace: "default",
        name: "",
        requestURI: "/api/v1/namespaces/default/configmaps?resourceVersion=0&watch=true",
        userAgent: "kit-test/1",
        receivedAt: Date.UTC(2026, 0, 1) + 1234,
        servedFrom: "cache",
      },
    ]);
    // In-process the accounting records a watch once it opened, as before.
    expect(engine.accounting.count({ verb: "watch" })).toBe(1);
    w.stop();
    expect(engine.inFlightRequests()).toEqual([]);
    expect(engine.accounting.count({ verb: "watch" })).toBe(1);
    engine.stop();
  });

  it("a watch leaves when its signal aborts, and when the engine ends it", async () => {
    const { engine } = setup();
    const ac = new AbortController();
    await engine.watch("configmaps", "default", {}, { signal: ac.signal });
    await engine.watch("secrets", "", {});
    expect(engine.inFlightRequests().map((r) => r.resource)).toEqual(["configmaps", "secrets"]);
    ac.abort();
    expect(engine.inFlightRequests().map((r) => `${r.resource} ${r.namespace}`)).toEqual(["secrets "]);
    expect(engine.faults.dropWatches()).toBe(1);
    expect(engine.inFlightRequests()).toEqual([]);
    engine.stop();
  });

  it("a list is in flight while it waits, and gone once answered; a finished request is not there", async () => {
    const { clock, engine } = setup();
    await engine.create("configmaps", "default", { metadata: { name: "a" } });
    expect(engine.inFlightRequests()).toEqual([]);
    engine.faults.latency({ ms: 500, verbs: ["list"] });
    const listed = engine.list("configmaps", "default", { limit: 5 });
    await settle();
    const open = engine.inFlightRequests();
    expect(open.map((r) => [r.verb, r.requestURI, r.servedFrom])).toEqual([
      ["list", "/api/v1/namespaces/default/configmaps?limit=5", undefined],
    ]);
    expect(engine.accounting.count({ verb: "list" })).toBe(0);
    await clock.step(500);
    expect((await listed).items).toHaveLength(1);
    expect(engine.inFlightRequests()).toEqual([]);
    expect(engine.accounting.count({ verb: "list" })).toBe(1);
    engine.stop();
  });

  it("a rejected request and a watch whose opening failed leave too", async () => {
    const { engine } = setup();
    await expect(engine.get("configmaps", "default", "missing")).rejects.toThrow(/not found/);
    await expect(engine.watch("configmaps", "default", { resourceVersion: "x" })).rejects.toThrow();
    expect(engine.inFlightRequests()).toEqual([]);
    engine.stop();
  });

  it("a snapshot taken earlier is not changed by later events", async () => {
    const { engine } = setup();
    const w = await engine.watch("configmaps", "default", {});
    const snap = engine.inFlightRequests();
    w.stop();
    expect(snap).toHaveLength(1);
    expect(engine.inFlightRequests()).toHaveLength(0);
    engine.stop();
  });
});
