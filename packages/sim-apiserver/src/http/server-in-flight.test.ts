// The HTTP face's requests in flight: a watch is there from its headers until its client goes away or the server
// ends it; a finished list is not; the accounting still records each request once, when it ends.
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw, openStream } from "./http-client.test-util.js";

const CM = "/api/v1/namespaces/default/configmaps";

let s: EngineServer;
let clock: FakeClock;

beforeAll(async () => {
  clock = new FakeClock();
  s = await startEngineServer(clock);
});
afterAll(async () => {
  await s.close();
});

describe("SimHttpServer.inFlightRequests", () => {
  it("an open watch is in flight with its fields until its client goes away; then it is recorded", async () => {
    await clock.step(777);
    const receivedAt = clock.now();
    const uri = `${CM}?watch=true&timeoutSeconds=600`;
    const w = await openStream(`${s.url}${uri}`, { headers: { "user-agent": "kit-http/2" } });
    expect(w.status).toBe(200);
    expect(s.server.inFlightRequests()).toEqual([
      {
        verb: "watch",
        group: "",
        version: "v1",
        resource: "configmaps",
        namespace: "default",
        name: "",
        requestURI: uri,
        userAgent: "kit-http/2",
        receivedAt,
        servedFrom: "cache",
      },
    ]);
    // Over HTTP the accounting sees the watch only when it ends.
    expect(s.engine.accounting.count({ verb: "watch", userAgent: "kit-http/2" })).toBe(0);
    w.close();
    // The client's close reaches the server over the socket (real I/O, not virtual time).
    await expect.poll(() => s.server.inFlightRequests().length).toBe(0);
    expect(s.engine.accounting.count({ verb: "watch", userAgent: "kit-http/2" })).toBe(1);
  });

  it("a watch the server ends leaves; a finished list and a discovery request are never listed", async () => {
    const w = await openStream(`${s.url}${CM}?watch=true`);
    const list = await fetchRaw(`${s.url}${CM}?limit=1`);
    expect(list.status).toBe(200);
    expect((await fetchRaw(`${s.url}/api`)).status).toBe(200);
    expect(s.server.inFlightRequests().map((r) => r.verb)).toEqual(["watch"]);
    expect(s.engine.faults.dropWatches()).toBe(1);
    expect(await w.ended).toBe(true);
    await expect.poll(() => s.server.inFlightRequests().length).toBe(0);
  });
});
