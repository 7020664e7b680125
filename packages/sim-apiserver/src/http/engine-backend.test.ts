// EngineBackend: the HTTP face hands the engine decoded options only, and the engine does the rest (reference/
// apiserver.md §2): the default watch timeout comes from the engine's Rand (the HTTP server draws nothing), and a
// deprecated /watch/ path reaches the engine as such (`legacyWatchPath`), so its options are validated as a list's.
import { failureStatus, type Status, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, type Rand } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { SimApiServer } from "../engine/sim-apiserver.js";
import { EngineBackend } from "./engine-backend.js";
import { fetchRaw, type LineStream, openStream } from "./http-client.test-util.js";
import { SimHttpServer } from "./server.js";

const CM = "/api/v1/namespaces/default/configmaps";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A Rand that returns `values` in turn and counts its draws. */
function scripted(...values: number[]): Rand & { draws: number } {
  const r = {
    draws: 0,
    float() {
      const v = values[r.draws % values.length]!;
      r.draws++;
      return v;
    },
  };
  return r;
}

async function start(engineRand: Rand) {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: engineRand, compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  const server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  const url = await server.start();
  cleanup.push(async () => {
    engine.stop();
    await server.close();
  });
  return { clock, engine, url };
}

async function stream(url: string): Promise<LineStream> {
  const s = await openStream(url);
  cleanup.push(() => s.close());
  return s;
}

const sendInitialEventsForList: Status = {
  ...failureStatus(
    422,
    "Invalid",
    'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
  ),
  details: {
    group: "meta.k8s.io",
    kind: "ListOptions",
    causes: [
      {
        reason: "FieldValueForbidden",
        message: "Forbidden: sendInitialEvents is forbidden for list",
        field: "sendInitialEvents",
      },
    ],
  },
};

describe("EngineBackend: the engine owns defaulting, validation and the default watch timeout", () => {
  it("a watch without timeoutSeconds gets minRequestTimeout·(1+rand) from the engine's Rand", async () => {
    const engineRand = scripted(0.25);
    const sim = await start(engineRand);
    await stream(`${sim.url}${CM}?watch=1&resourceVersion=1`);
    const [w] = sim.engine.caches.watchers("configmaps");
    expect(w!.deadline - sim.clock.now()).toBe(Math.floor(1800 * 1.25) * 1000);
    expect(engineRand.draws).toBe(1);
  });

  it("a given timeoutSeconds is used as is and draws nothing", async () => {
    const engineRand = scripted(0.25);
    const sim = await start(engineRand);
    await stream(`${sim.url}${CM}?watch=1&resourceVersion=1&timeoutSeconds=7`);
    const [w] = sim.engine.caches.watchers("configmaps");
    expect(w!.deadline - sim.clock.now()).toBe(7000);
    expect(engineRand.draws).toBe(0);
  });

  it("a /watch/ path without watch=true is validated as a list's options, over HTTP and in-process alike", async () => {
    const sim = await start(scripted(0.5));
    const query = "resourceVersion=0&resourceVersionMatch=NotOlderThan&sendInitialEvents=true";
    const r = await fetchRaw(`${sim.url}/api/v1/watch/namespaces/default/configmaps?${query}`);
    expect([r.status, r.json]).toEqual([422, sendInitialEventsForList]);
    // The same options with watch=true are a valid watch-list.
    await stream(`${sim.url}${CM}?watch=true&${query}`);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(1);
    const err = await sim.engine
      .watch(
        "configmaps",
        "default",
        { resourceVersion: "0", resourceVersionMatch: "NotOlderThan", sendInitialEvents: true },
        { legacyWatchPath: true },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    expect((err as StatusError).message).toBe(sendInitialEventsForList.message);
  });
});
