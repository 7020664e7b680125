import { silentLogger } from "@informer-ts/cache";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { fakeSources, parents } from "./controller.test-util.js";
import { Manager } from "./manager.js";
import { type HealthChecker, ProbeServer } from "./probe-server.js";

const servers: ProbeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(healthz: Record<string, HealthChecker>, readyz: Record<string, HealthChecker> = {}) {
  const server = new ProbeServer({ port: 0, healthz, readyz });
  servers.push(server);
  const url = await server.start();
  const get = async (path: string, init?: RequestInit): Promise<[number, string]> => {
    const res = await fetch(`${url}${path}`, init);
    return [res.status, await res.text()];
  };
  return get;
}

describe("ProbeServer checks", () => {
  it("runs sync and async checks; any failure (string, Error, throw, rejection) is a 503 listing every check", async () => {
    let broken = false;
    const get = await serve({
      ping: () => undefined,
      async: async () => {},
      disk: () => (broken ? "disk full" : undefined),
      db: async () => (broken ? new Error("db unreachable") : undefined),
      thrower: () => {
        if (broken) throw new Error("thrown");
      },
      rejecter: async () => {
        if (broken) throw "not an Error";
      },
    });
    expect(await get("/healthz")).toEqual([200, "ok"]);
    expect(await get("/healthz?verbose")).toEqual([
      200,
      "[+]ping ok\n[+]async ok\n[+]disk ok\n[+]db ok\n[+]thrower ok\n[+]rejecter ok\nhealthz check passed\n",
    ]);
    broken = true;
    expect(await get("/healthz")).toEqual([
      503,
      "[+]ping ok\n[+]async ok\n[-]disk failed: disk full\n[-]db failed: db unreachable\n[-]thrower failed: thrown\n" +
        "[-]rejecter failed: not an Error\nhealthz check failed\n",
    ]);
  });

  it("serves each check on its own sub-path; an unknown one is 404", async () => {
    const get = await serve({ ok: () => {} }, { cache: () => "informers not synced", ok: async () => {} });
    expect(await get("/healthz/ok")).toEqual([200, "ok"]);
    expect(await get("/readyz/ok?verbose")).toEqual([200, "[+]ok ok\nreadyz check passed\n"]);
    expect(await get("/readyz/cache")).toEqual([503, "[-]cache failed: informers not synced\nreadyz check failed\n"]);
    expect(await get("/readyz/nope")).toEqual([404, "no such check: nope\n"]);
    expect(await get("/readyz")).toEqual([
      503,
      "[-]cache failed: informers not synced\n[+]ok ok\nreadyz check failed\n",
    ]);
  });

  it("?exclude skips checks (repeatable), and warns about exclusions that match nothing", async () => {
    const get = await serve({ ping: () => {}, flaky: () => "down", slow: () => "down too" });
    expect((await get("/healthz?exclude=flaky"))[0]).toBe(503);
    expect(await get("/healthz?exclude=flaky&exclude=slow")).toEqual([200, "ok"]);
    expect(await get("/healthz?exclude=flaky&exclude=slow&exclude=nope&verbose")).toEqual([
      200,
      '[+]ping ok\n[+]flaky excluded: ok\n[+]slow excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
    ]);
  });

  it("hands each check the probe's request", async () => {
    const seen: (string | undefined)[] = [];
    const get = await serve({
      agent: (req) => {
        seen.push(req.headers["x-probe"] as string | undefined);
        return req.headers["x-probe"] === "kubelet" ? undefined : "unexpected caller";
      },
    });
    expect((await get("/healthz", { headers: { "x-probe": "kubelet" } }))[0]).toBe(200);
    expect(await get("/healthz/agent")).toEqual([503, "[-]agent failed: unexpected caller\nhealthz check failed\n"]);
    expect(seen).toEqual(["kubelet", undefined]);
  });
});

describe("Manager.addHealthzCheck / addReadyzCheck", () => {
  it("serves added checks beside the built-in ones, over HTTP", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const m = new Manager({
      quiet: true, // no log assertions here
      listerWatcherFor: (r) => sources.listerWatcherFor(r),
      clock,
      rand: seededRand(7),
      informerOptions: { reflector: { logger: silentLogger } },
      probe: { port: 0 },
    });
    m.informerFor(parents);
    let queueFull = true;
    m.addHealthzCheck("event-loop", () => {});
    m.addReadyzCheck("queue", async () => (queueFull ? "work queue over its high-water mark" : undefined));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    for (let i = 0; i < 100 && m.notReadyReason() !== undefined; i++) {
      await settle();
      await new Promise((r) => setImmediate(r));
    }
    const { port } = m.probeAddress()!;
    const get = async (path: string): Promise<[number, string]> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return [res.status, await res.text()];
    };
    expect(await get("/healthz?verbose")).toEqual([200, "[+]ping ok\n[+]event-loop ok\nhealthz check passed\n"]);
    expect(await get("/healthz/event-loop")).toEqual([200, "ok"]);
    expect(await get("/readyz")).toEqual([
      503,
      "[+]manager ok\n[-]queue failed: work queue over its high-water mark\nreadyz check failed\n",
    ]);
    expect(await get("/readyz/manager")).toEqual([200, "ok"]);
    queueFull = false;
    expect(await get("/readyz")).toEqual([200, "ok"]);
    expect(() => m.addReadyzCheck("late", () => {})).toThrow(
      "unable to add new checker because readyz endpoint has already been created (check late)",
    );
    ac.abort();
    await run;
  });

  it("refuses bad names, duplicates (built-ins included) and non-functions, naming the problem", () => {
    const clock = new FakeClock(0);
    const m = new Manager({ listerWatcherFor: (r) => fakeSources(clock).listerWatcherFor(r), clock, quiet: true });
    m.addHealthzCheck("db", () => {});
    expect(() => m.addHealthzCheck("db", () => {})).toThrow("healthz check db already exists");
    expect(() => m.addHealthzCheck("ping", () => {})).toThrow("healthz check ping already exists");
    expect(() => m.addReadyzCheck("manager", () => {})).toThrow("readyz check manager already exists");
    m.addReadyzCheck("db", () => {}); // the endpoints have separate names
    expect(() => m.addReadyzCheck("a/b", () => {})).toThrow(
      'a readyz check name must be a non-empty string without "/"',
    );
    expect(() => m.addReadyzCheck("", () => {})).toThrow("a readyz check name must be a non-empty string");
    expect(() => m.addReadyzCheck("x", "yes" as unknown as HealthChecker)).toThrow("readyz check x must be a function");
  });
});
