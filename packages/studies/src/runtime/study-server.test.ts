import { builtinResources } from "@informer-ts/client";
import { FakeClock, realClock, seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { describe, expect, it } from "vitest";
import { openStudyServer, studyClock } from "./study-server.js";

describe("studyClock / openStudyServer", () => {
  it("gives a FakeClock in virtual time and the real clock for --real-time", () => {
    const v = studyClock(false);
    expect(v.fake).toBeInstanceOf(FakeClock);
    expect(v.clock).toBe(v.fake);
    expect(v.clock.now()).toBe(Date.UTC(2026, 0, 1));
    const r = studyClock(true);
    expect(r.fake).toBeUndefined();
    expect(r.clock).toBe(realClock);
  });

  it.each([false, true])("lists the same objects in process and over HTTP (http: %s)", async (http) => {
    const sim = new SimApiServer({ clock: realClock, rand: seededRand(1), compactionIntervalMs: 0 });
    try {
      for (const name of ["a", "b"])
        await sim.create("configmaps", "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
      const server = await openStudyServer(sim, { http, clock: realClock });
      try {
        expect(server.url === undefined).toBe(!http);
        if (http) expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const list = await server.listerWatcher(builtinResources.configmaps).list({ resourceVersion: "0" });
        expect(list.items.map((o) => o.metadata?.name).sort()).toEqual(["a", "b"]);
        // over HTTP the list went through the HTTP face, which accounts it with the client's user agent
        const agents = sim.accounting
          .rows()
          .filter((r) => r.verb === "list")
          .map((r) => r.userAgent);
        expect(agents).toHaveLength(1);
        if (http) expect(agents[0]).not.toBe(sim.accounting.rows().find((r) => r.verb === "create")?.userAgent);
      } finally {
        await server.close();
      }
    } finally {
      sim.stop();
    }
  });
});
