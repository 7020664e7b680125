import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { newJsonLineLogger } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_COST_MODEL, newCostModel } from "./filters/cost-model.js";
import { SimApiServer } from "./sim-apiserver.js";
import type { SimApiServerOptions } from "./sim-apiserver-options.js";

const engines: SimApiServer[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.stop();
});

function rig(opts: SimApiServerOptions = {}) {
  const clock = new FakeClock();
  const logs: Array<{ msg: string }> = [];
  const audit: Array<Record<string, unknown>> = [];
  const engine = new SimApiServer({
    clock,
    rand: seededRand(3),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    logger: newJsonLineLogger((l) => logs.push(JSON.parse(l))),
    ...opts,
  });
  engines.push(engine);
  engine.accounting.auditLog = (l) => audit.push(JSON.parse(l));
  return { clock, engine, logs, audit };
}

const cm = (name: string, size = 2_000): KubeObject => ({ metadata: { name }, data: { k: "v".repeat(size) } });

/** Runs `p` to completion, moving the fake clock 1 ms at a time (open watches keep their own timers). */
async function done<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let settled = false;
  const q = p.finally(() => {
    settled = true;
  });
  q.catch(() => {}); // the caller awaits q; this keeps its rejection handled while the clock moves
  await settle();
  for (let i = 0; i < 100_000 && !settled; i++) await clock.step(1);
  return q;
}

describe("engine request models", () => {
  it("are off by default: requests take no virtual time and record no cost, no trace", async () => {
    const { clock, engine, logs, audit } = rig();
    await engine.create("configmaps", "default", cm("a"));
    const t0 = clock.now();
    await engine.list("configmaps", "default", { limit: 10 });
    expect(clock.now()).toBe(t0);
    expect(engine.accounting.rows().every((r) => r.cpuMsSum === 0)).toBe(true);
    expect(logs).toEqual([]);
    // An audit sink alone makes in-process lines complete: URI, name, encoded response bytes.
    const list = audit.find((e) => e.verb === "list")!;
    expect(list.requestURI).toBe("/api/v1/namespaces/default/configmaps?limit=10");
    expect(Number((list.annotations as Record<string, string>)["sim.informer-ts.dev/bytes"])).toBeGreaterThan(2_000);
  });

  it("charge a storage list its path on the clock, record CPU and seats, and trace it when slow", async () => {
    // ListFromCacheSnapshot off (≤ v1.33): an exact-RV list is read from storage. A slower etcd decode (0.1 ms/KiB)
    // makes its 6 MB take over the trace threshold.
    const { clock, engine, logs, audit } = rig({
      costModel: newCostModel({ storageMsPerKiB: 0.1 }),
      traceLog: true,
      listFromCacheSnapshot: false,
    });
    for (let i = 0; i < 300; i++) await done(clock, engine.create("configmaps", "default", cm(`c${i}`, 20_000)));
    await done(clock, engine.get("configmaps", "default", "c1", {}, { userAgent: "kubelet/v1.28.0" }));
    const t0 = clock.now();
    // RV "0" with a limit is served from the watch cache (whole list); an exact RV with a limit is read from storage.
    await done(
      clock,
      engine.list("configmaps", "default", { resourceVersion: "0", limit: 500 }, { userAgent: "kubectl" }),
    );
    const cacheMs = clock.now() - t0;
    const rv = String(engine.currentResourceVersion);
    const ctx = { userAgent: "kubectl" };
    const t1 = clock.now();
    await done(
      clock,
      engine.list("configmaps", "default", { resourceVersion: rv, resourceVersionMatch: "Exact" }, ctx),
    );
    const storageMs = clock.now() - t1;
    expect(storageMs).toBeGreaterThan(cacheMs);
    const lists = audit.filter((e) => e.verb === "list");
    const [fromCache, fromStorage] = lists.map((e) => e.annotations as Record<string, string>);
    expect(fromCache!["sim.informer-ts.dev/served-from"]).toBe("cache");
    // 300 objects of ~20 KB: ~6 MB in memory, a cache list counts at most 1 MB → 10 seats; from storage ≤ 100.
    expect(fromCache!["sim.informer-ts.dev/apf-seats"]).toBe("10");
    expect(Number(fromStorage!["sim.informer-ts.dev/apf-seats"])).toBeGreaterThan(10);
    const cpu = engine.accounting.cpuSecondsBy("servedFrom", { verb: "list" });
    expect(cpu.get("storage")!).toBeGreaterThan(cpu.get("cache")!);
    expect(engine.accounting.cpuSecondsBy("userAgent").get("kubelet/v1.28.0")).toBeCloseTo(
      Number(
        audit.find((e) => e.userAgent === "kubelet/v1.28.0")!.annotations!["sim.informer-ts.dev/cpu-ms" as never],
      ) / 1000,
      6,
    );
    // Only the storage list took ≥ 500 ms: one trace, its audit ID the one of its audit line.
    expect(storageMs).toBeGreaterThan(500);
    expect(logs).toHaveLength(1);
    const trace = logs[0]!.msg.split("\n");
    const id = (lists[1]!.auditID as string).replace(/[-]/g, "\\-");
    expect(trace[0]).toMatch(
      new RegExp(
        `^Trace\\[\\d+\\]: "List" accept:unknown,audit-id:${id},client:unknown,protocol:in-process,resource:configmaps,scope:namespace,url:/api/v1/namespaces/default/configmaps,user-agent:kubectl,verb:LIST \\(\\d\\d-Jan-2026 [\\d:.]+\\) \\(total time: \\d+ms\\):$`,
      ),
    );
    // The clock moved in 1 ms steps, so the request's end is within 1 ms before the measured time.
    expect(Math.abs(Number(/total time: (\d+)ms/.exec(trace[0]!)![1]) - storageMs)).toBeLessThanOrEqual(1);
    expect(trace.some((l) => /---"Listing from storage done" \d+ms/.test(l))).toBe(true);
    expect(trace.at(-1)).toMatch(/\] END$/);
    expect(lists[1]!.requestURI).toBe(
      `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    expect(fromStorage!["apiserver.latency.k8s.io/etcd"]).toBe("1.05ms");
    expect(fromStorage!["apiserver.latency.k8s.io/total"]).toMatch(/ms$|s$/);
  });

  it("gives a write with many interested watchers final seats, and charges a failed GET", async () => {
    const { clock, engine, audit } = rig({ costModel: newCostModel({ storageWriteCommitMs: 5 }) });
    await done(clock, engine.create("configmaps", "default", cm("w")));
    const stops: Array<() => void> = [];
    for (let i = 0; i < 25; i++) {
      const w = await done(clock, engine.watch("configmaps", "default", { fieldSelector: "metadata.name=w" }));
      stops.push(() => w.stop());
    }
    await done(clock, engine.update("configmaps", "default", "w", cm("w", 10)));
    const upd = audit.find((e) => e.verb === "update")!.annotations as Record<string, string>;
    expect([upd["sim.informer-ts.dev/apf-seats"], upd["sim.informer-ts.dev/apf-final-seats"]]).toEqual(["1", "3"]);
    const t0 = clock.now();
    await expect(done(clock, engine.get("configmaps", "default", "nope"))).rejects.toMatchObject({ code: 404 });
    expect(clock.now() - t0).toBeGreaterThanOrEqual(
      DEFAULT_COST_MODEL.requestOverheadMs + DEFAULT_COST_MODEL.storageRoundTripMs,
    );
    const miss = audit.find((e) => (e.responseStatus as { code: number }).code === 404)!;
    expect(Number((miss.annotations as Record<string, string>)["sim.informer-ts.dev/cpu-ms"])).toBeGreaterThan(0);
    for (const s of stops) s();
  });

  it("estimates kube-apiserver's memory for the open watches (100 KB per idle single-object watch)", async () => {
    const { clock, engine } = rig();
    for (const n of ["a", "b", "c"]) await engine.create("configmaps", "default", cm(n, 500));
    const watches = [];
    for (const n of ["a", "b", "c"]) {
      watches.push(await engine.watch("configmaps", "default", { fieldSelector: `metadata.name=${n}` }));
    }
    const g = engine.caches.watchMemory();
    expect(g.watches).toBe(3);
    expect(g.totalBytes).toBe(300_000);
    expect(g.byResource.map((r) => r.resource)).toEqual(["configmaps"]);
    for (const w of watches) w.stop();
    await clock.runUntilIdle();
    expect(engine.caches.watchMemory()).toEqual({ watches: 0, totalBytes: 0, byResource: [] });
  });

  it("estimate APF seats as the engine's kubeVersion did (1.22: no work estimation)", async () => {
    const seatsOf = async (kubeVersion: "1.22" | "1.34") => {
      const { clock, engine, audit } = rig({ kubeVersion, costModel: true });
      for (let i = 0; i < 50; i++) engine.storage.create(engine.resource("configmaps"), "default", cm(`s${i}`, 20_000));
      await done(clock, engine.list("configmaps", "default", { resourceVersion: "0" }));
      return (audit.at(-1)!.annotations as Record<string, string>)["sim.informer-ts.dev/apf-seats"];
    };
    expect(await seatsOf("1.34")).toBe("10"); // 50 × 20 KB from the cache: 1 MB counted → 10 seats
    expect(await seatsOf("1.22")).toBe("1");
  });

  it("a list naming one object takes the minimum seats, as RequestInfo names it (also among other field terms)", async () => {
    const { clock, engine, audit } = rig({ costModel: true });
    for (let i = 0; i < 50; i++) engine.storage.create(engine.resource("configmaps"), "default", cm(`s${i}`, 20_000));
    const seatsOf = async (fieldSelector: string) => {
      await done(clock, engine.list("configmaps", "default", { resourceVersion: "0", fieldSelector }));
      return (audit.at(-1)!.annotations as Record<string, string>)["sim.informer-ts.dev/apf-seats"];
    };
    expect(await seatsOf("metadata.name=s3")).toBe("1");
    expect(await seatsOf("metadata.namespace=default,metadata.name=s3")).toBe("1");
    expect(await seatsOf("metadata.name!=s3")).toBe("10"); // the whole cache-served list: 1 MB counted
  });

  it("with costModelLatency record, answer at once on a clock nobody advances and record the modelled latency", async () => {
    // The default (sleep): a create waits its modelled latency on the clock, so a caller that does not advance the
    // FakeClock never sees it resolve.
    const sleeping = rig({ costModel: true });
    let created = false;
    const pending = sleeping.engine.create("configmaps", "default", cm("a")).then(() => {
      created = true;
    });
    await settle();
    await settle();
    expect(created).toBe(false);
    await sleeping.clock.step(10);
    await pending;
    expect(created).toBe(true);

    // record: the same requests resolve without the clock moving, with the same CPU and seats, and latencies that
    // are the model's (accounting, audit timestamps, trace).
    const run = async (costModelLatency: "sleep" | "record") => {
      const { clock, engine, audit, logs } = rig({
        costModel: newCostModel({ storageMsPerKiB: 0.1 }),
        costModelLatency,
        traceLog: true,
        listFromCacheSnapshot: false,
      });
      const t0 = clock.now();
      const go = <T>(p: Promise<T>) => (costModelLatency === "sleep" ? done(clock, p) : p);
      for (let i = 0; i < 300; i++) await go(engine.create("configmaps", "default", cm(`c${i}`, 20_000)));
      await go(engine.get("configmaps", "default", "c1", {}, { userAgent: "kubelet/v1.28.0" }));
      const rv = String(engine.currentResourceVersion);
      await go(engine.list("configmaps", "default", { resourceVersion: rv, resourceVersionMatch: "Exact" }));
      return { elapsed: clock.now() - t0, engine, audit, logs };
    };
    const slept = await run("sleep");
    const recorded = await run("record");
    expect(recorded.elapsed).toBe(0);
    expect(slept.elapsed).toBeGreaterThan(500);
    const cpu = (e: SimApiServer) => [...e.accounting.cpuSecondsBy("verb").entries()];
    expect(cpu(recorded.engine)).toEqual(cpu(slept.engine));
    const rows = recorded.engine.accounting.rows();
    expect(rows.reduce((a, r) => a + r.seatSeconds, 0)).toBeCloseTo(
      slept.engine.accounting.rows().reduce((a, r) => a + r.seatSeconds, 0),
      6,
    );
    // The sleeping run's timers fire at their exact due times: the same latencies, to float rounding of the epoch ms.
    const latency = (e: SimApiServer) => e.accounting.rows().reduce((a, r) => a + r.latencyMsSum, 0);
    expect(latency(recorded.engine)).toBeGreaterThan(500);
    expect(latency(recorded.engine)).toBeCloseTo(latency(slept.engine), 0);
    // Each request's recorded latency is its modelled latency; the audit line's timestamps are that far apart.
    const list = recorded.audit.find((e) => e.verb === "list")!;
    const ann = list.annotations as Record<string, string>;
    const modelled = Number(ann["sim.informer-ts.dev/latency-ms"]);
    expect(modelled).toBeGreaterThan(500);
    const span = Date.parse(list.stageTimestamp as string) - Date.parse(list.requestReceivedTimestamp as string);
    expect(Math.abs(span - modelled)).toBeLessThan(1);
    // The slow list is traced in both modes, with the same steps and total time.
    expect(recorded.logs).toHaveLength(1);
    const steps = (l: { msg: string }) =>
      l.msg
        .split("\n")
        .filter((x) => x.includes("---"))
        .map((x) => x.replace(/\(\d\d:[\d:.]+\)/, ""));
    expect(steps(recorded.logs[0]!)).toEqual(steps(slept.logs[0]!));
    expect(Math.abs(Number(/total time: (\d+)ms/.exec(recorded.logs[0]!.msg)?.[1]) - modelled)).toBeLessThanOrEqual(1);
    expect(recorded.logs[0]!.msg).toMatch(/---"Listing from storage done" \d+ms/);
  });

  it("names a bad model setting", () => {
    expect(() => rig({ costModel: { ...DEFAULT_COST_MODEL, cacheMsPerObject: -1 } })).toThrow(
      /cacheMsPerObject must be a finite number ≥ 0, got -1/,
    );
    expect(() => rig({ traceLog: { thresholdMs: Number.NaN } })).toThrow(/thresholdMs/);
    expect(() => rig({ costModel: true, costModelLatency: "later" as never })).toThrow(
      /costModelLatency must be "sleep" or "record", got "later"/,
    );
  });
});
