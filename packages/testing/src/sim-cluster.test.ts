import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { StatusError } from "@informer-ts/apimachinery";

const isStatusError = (e: unknown): e is StatusError => e instanceof StatusError;

import { get as httpGet } from "node:http";
import { builtinResources } from "@informer-ts/client";
import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { controllerReactionMs } from "./latency-model.js";
import { createSimCluster, type SimCluster, type SimTransport } from "./sim-cluster.js";

const { configmaps } = builtinResources;
const cm = (name: string, v = "1", namespace = "default"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
  data: { v },
});

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Reads `n` events from a watch, letting the cluster settle (virtual time) while waiting. */
async function take(c: SimCluster, it: AsyncIterator<WatchEvent<KubeObject>>, n: number) {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const next = it.next();
    await c.settle({ until: () => false, maxMs: 0 }).catch(() => undefined);
    const r = await next;
    if (r.done === true) break;
    out.push(`${r.value.type} ${(r.value.object as KubeObject).metadata?.name ?? ""}`);
  }
  return out;
}

describe.each<SimTransport>(["in-process", "http"])("createSimCluster (%s)", (transport) => {
  it("runs every KubeClient verb against the simulator under a FakeClock", async () => {
    const clock = new FakeClock();
    const c = await createSimCluster({ clock, seed: 7, transport, latency: "zero" });
    cluster = c;
    expect(c.transport).toBe(transport);
    expect(c.kubeconfig === undefined).toBe(transport === "in-process");
    const created = await c.client.create(configmaps, cm("a"));
    expect(created.metadata?.uid).toBeTruthy();
    for (let i = 0; i < 5; i++) await c.client.create(configmaps, cm(`p-${i}`));
    const got = await c.client.get(configmaps, "a", { namespace: "default" });
    expect(got.data).toEqual({ v: "1" });
    const page1 = await c.client.list(configmaps, { namespace: "default", limit: 4 });
    expect(page1.items).toHaveLength(4);
    expect(page1.metadata.continue).toBeTruthy();
    const page2 = await c.client.list(configmaps, {
      namespace: "default",
      limit: 4,
      continue: page1.metadata.continue!,
    });
    expect(page2.items.map((o) => o.metadata?.name)).toEqual(["p-3", "p-4"]);
    const updated = await c.client.update(configmaps, { ...got, data: { v: "2" } });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(got.metadata?.resourceVersion));
    const patched = await c.client.patch(configmaps, "a", { data: { w: "3" } }, { namespace: "default" });
    expect(patched.data).toEqual({ v: "2", w: "3" });
    await c.client.delete(configmaps, "a", { namespace: "default" });
    const missing = await c.client.get(configmaps, "a", { namespace: "default" }).catch((e: unknown) => e);
    expect(isStatusError(missing) && missing.code).toBe(404);
    // The server recorded each request once, with where reads were served from.
    const verbs = c.requests.map((r) => r.verb);
    expect(verbs.filter((v) => v === "create")).toHaveLength(6);
    // Consistent lists are served from the watch cache (kube-apiserver 1.33+ ConsistentListFromCache).
    expect(c.requests.find((r) => r.verb === "list")?.servedFrom).toBe("cache");
    expect(c.requests.find((r) => r.verb === "get" && r.code === 404)).toBeDefined();
    await c.settle();
    expect(c.pending().requests).toEqual([]);
  });

  it("streams a watch, survives an abort and reports faults as the client sees them over a socket", async () => {
    const c = await createSimCluster({ seed: 3, transport, latency: "zero" });
    cluster = c;
    const start = await c.client.create(configmaps, cm("w0"));
    const ac = new AbortController();
    const w = await c.client.watch(
      configmaps,
      { namespace: "default", resourceVersion: start.metadata!.resourceVersion!, allowWatchBookmarks: false },
      ac.signal,
    );
    const it = w[Symbol.asyncIterator]();
    await c.client.create(configmaps, cm("w1"));
    await c.client.patch(configmaps, "w1", { data: { v: "9" } }, { namespace: "default" });
    await c.client.delete(configmaps, "w0", { namespace: "default" });
    expect(await take(c, it, 3)).toEqual(["ADDED w1", "MODIFIED w1", "DELETED w0"]);
    // A clean drop by the server ends the stream.
    expect(c.faults.dropWatches()).toBe(1);
    expect((await it.next()).done).toBe(true);
    ac.abort();
    // 429 with Retry-After reaches the client as a StatusError (retries are off in the fixture's client).
    c.faults.request({ type: "apf-429", verbs: ["list"], count: 1, retryAfterSeconds: 2 });
    const err = await c.client.list(configmaps, { namespace: "default" }).catch((e: unknown) => e);
    expect(isStatusError(err) && err.code).toBe(429);
    // A dropped connection is a transport error, not a StatusError.
    c.faults.request({ type: "drop-connection", verbs: ["get"], count: 1 });
    const dropped = await c.client.get(configmaps, "w1", { namespace: "default" }).catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(Error);
    expect(isStatusError(dropped)).toBe(false);
    await c.settle();
  });
});

describe.each<SimTransport>(["in-process", "http"])("SimCluster.inFlight (%s)", (transport) => {
  it("an open watch is listed until aborted; a finished list is not; direct engine calls are listed too", async () => {
    const c = await createSimCluster({ seed: 5, transport, latency: "zero" });
    cluster = c;
    await c.client.list(configmaps, { namespace: "default" });
    expect(c.inFlight()).toEqual([]);
    const ac = new AbortController();
    const w = await c.client.watch(configmaps, { namespace: "default", allowWatchBookmarks: false }, ac.signal);
    await c.settle();
    const open = c.inFlight();
    expect(open.map((r) => [r.verb, r.resource, r.namespace, r.servedFrom])).toEqual([
      ["watch", "configmaps", "default", "cache"],
    ]);
    expect(open[0]!.requestURI).toMatch(/^\/api\/v1\/namespaces\/default\/configmaps\?.*watch=true/);
    expect(open[0]!.receivedAt).toBe(c.clock.now());
    expect(c.requests.filter((r) => r.verb === "watch")).toEqual([]);
    // A watch opened on the engine directly (the in-process face) shows beside it, after it.
    await c.clock.step(10);
    const direct = await c.engine.watch("secrets", "kube-system", {}, { userAgent: "direct/1" });
    expect(c.inFlight().map((r) => `${r.verb} ${r.resource} ${r.userAgent}`)).toEqual([
      `watch configmaps ${open[0]!.userAgent}`,
      "watch secrets direct/1",
    ]);
    direct.stop();
    ac.abort();
    w.stop();
    await c.settle({ until: () => c.inFlight().length === 0 });
    expect(c.inFlight()).toEqual([]);
    expect(c.requests.filter((r) => r.verb === "watch")).toHaveLength(1);
  });
});

describe("createSimCluster in-process specifics", () => {
  it('requestLog "counts" keeps no request records, only counts by verb and resource (subresources named)', async () => {
    const c = await createSimCluster({ requestLog: "counts" });
    cluster = c;
    const all = await createSimCluster();
    const made = await c.client.create(configmaps, cm("a"));
    await c.client.update(configmaps, { ...made, data: { v: "2" } });
    await c.client.get(configmaps, "a", { namespace: "default" });
    await c.client.get(configmaps, "missing", { namespace: "default" }).catch(() => undefined);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "default" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    };
    const created = await c.client.create(builtinResources.pods, pod);
    await c.client.updateStatus(builtinResources.pods, { ...created, status: { phase: "Running" } });
    await c.settle();
    expect(c.requests).toEqual([]);
    expect(Object.fromEntries(c.requestCounts)).toEqual({
      "create configmaps": 1,
      "update configmaps": 1,
      "get configmaps": 2,
      "create pods": 1,
      "update pods/status": 1,
    });
    // The default keeps the records and the same counts.
    await all.client.create(configmaps, cm("a"));
    await all.settle();
    expect(all.requests.map((r) => r.verb)).toEqual(["create"]);
    expect(Object.fromEntries(all.requestCounts)).toEqual({ "create configmaps": 1 });
    await all.close();
  });

  it("aborting a watch closes it on the server, and settle() leaves no request in flight", async () => {
    const c = await createSimCluster({ latency: "zero" });
    cluster = c;
    const ac = new AbortController();
    const w = await c.client.watch(configmaps, { namespace: "default" }, ac.signal);
    await c.settle();
    expect(c.server.stats.openWatches).toBe(1);
    ac.abort();
    w.stop();
    await c.settle({ until: () => c.server.stats.openWatches === 0 });
    expect(c.server.stats.openWatches).toBe(0);
  });

  it("settle() times out with an error naming what is still pending", async () => {
    const c = await createSimCluster({ latency: "zero" });
    cluster = c;
    const never = new Promise<void>(() => undefined);
    void c.track("reconcile default/x", never);
    await expect(c.settle({ maxMs: 1000 })).rejects.toThrow(/tracked work pending: reconcile default\/x/);
    c.faults.latency({ ms: 5000, verbs: ["get"] });
    const slow = c.client.get(configmaps, "nope", { namespace: "default" }).catch((e: unknown) => e);
    const c2 = c;
    await expect(c2.settle({ maxMs: 1000, until: () => true })).rejects.toThrow(/requests in flight: GET/);
    await c.clock.step(5000);
    expect(isStatusError(await slow) && ((await slow) as { code: number }).code).toBe(404);
  });

  it("settle() runs the timers due now (the garbage collector's 0-ms reaction under zero latency) without advancing time", async () => {
    const c = await createSimCluster({ latency: "zero" });
    cluster = c;
    const owner = await c.client.create(configmaps, cm("owner"), {});
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid!, controller: true };
    const child = { ...cm("child"), metadata: { name: "child", namespace: "default", ownerReferences: [ref] } };
    await c.client.create(configmaps, child, {});
    await c.client.delete(configmaps, "owner", { namespace: "default" });
    const before = c.clock.now();
    await c.settle();
    // The collector's delete of the orphaned child is part of this settle, at the same virtual instant.
    const names = (await c.client.list(configmaps, { namespace: "default" })).items.map((o) => o.metadata!.name);
    expect(names).toEqual([]);
    expect(c.clock.now()).toBe(before);
  });

  it("is deterministic: the same seed gives the same uids and request log", async () => {
    const run = async () => {
      const c = await createSimCluster({ seed: 42, latency: "zero" });
      const out: string[] = [];
      for (let i = 0; i < 3; i++) out.push((await c.client.create(configmaps, cm(`d-${i}`))).metadata!.uid!);
      out.push(...c.requests.map((r) => `${r.verb}:${r.code}:${r.receivedAt}`));
      await c.close();
      return out;
    };
    expect(await run()).toEqual(await run());
  });
});

/** GETs `path` with node:http, paused until `resumeAfterTurns` event-loop turns passed (never, if undefined). */
function slowRead(url: string, path: string, resumeAfterTurns: number | undefined) {
  const state = { bytes: 0, code: 0, outcome: "" };
  let headersArrived: () => void = () => undefined;
  /**
   * Resolves once the response headers arrived (or the request failed): the server is writing the body by then. A
   * request made outside the cluster's client is invisible to `settle` until it reaches the server, and meanwhile
   * `settle` advances virtual time from timer to timer — so a test settles only after this.
   */
  const headers = new Promise<void>((resolve) => {
    headersArrived = resolve;
  });
  const done = new Promise<void>((resolve) => {
    const req = httpGet(`${url}${path}`, (res) => {
      headersArrived();
      state.code = res.statusCode ?? 0;
      res.pause();
      res.on("data", (b: Buffer) => {
        state.bytes += b.length;
      });
      res.on("end", () => {
        state.outcome = "complete";
        resolve();
      });
      res.on("error", (err) => {
        state.outcome ||= `cut: ${err.message}`;
        resolve();
      });
      res.on("close", () => {
        state.outcome ||= "cut: closed before the end";
        resolve();
      });
      if (resumeAfterTurns !== undefined) {
        let turns = 0;
        const tick = () => (++turns >= resumeAfterTurns ? res.resume() : setImmediate(tick));
        setImmediate(tick);
      }
    });
    req.on("error", (err) => {
      state.outcome = `cut: ${err.message}`;
      headersArrived();
      resolve();
    });
  });
  return { state, headers, done };
}

describe("createSimCluster (http): settle and response bodies in transit", () => {
  /** 40 ConfigMaps of 512 KiB: a ~20 MB streamed list, more than the loopback socket buffers hold. */
  async function bigCluster(): Promise<SimCluster> {
    const c = await createSimCluster({ seed: 3, transport: "http", latency: "zero" });
    cluster = c;
    const big = "x".repeat(512 * 1024);
    for (let i = 0; i < 40; i++)
      await c.engine.create("configmaps", "default", { ...cm(`big-${i}`), data: { v: big } });
    return c;
  }

  it("does not advance virtual time past the server's request timeout while a list body is still crossing the socket", async () => {
    // The pager-less list of an informer's relist, read by a client that is busy for a few event-loop turns. The
    // server's 60 s request deadline is the next timer: a settle that advanced to it cut the list, on every relist.
    const c = await bigCluster();
    const read = slowRead(c.url, "/api/v1/configmaps", 50);
    await read.headers;
    const t0 = c.clock.now();
    // Settle until the server has written the whole body. What is left then sits in the kernel's socket buffers
    // (loopback receive buffers grow to tens of MB while the client reads), out of the server's reach and the
    // request timeout's: the client reads it in real time.
    await c.settle({ maxMs: 10 * 60_000, until: () => c.server.responsesInTransit().responses === 0 });
    expect(c.clock.now() - t0).toBeLessThan(60_000);
    await read.done;
    expect(read.state.outcome).toBe("complete");
    expect(read.state.code).toBe(200);
    expect(read.state.bytes).toBeGreaterThan(40 * 512 * 1024);
  });

  it("gives up on a body whose client stopped reading, once, and names it when it cannot settle", async () => {
    const c = await bigCluster();
    const read = slowRead(c.url, "/api/v1/configmaps", undefined);
    let finished = false;
    void read.done.then(() => {
      finished = true;
    });
    await read.headers;
    const t0 = c.clock.now();
    await expect(c.settle({ maxMs: 5 * 60_000, until: () => finished })).rejects.toThrow(
      /1 response bodies stuck in transit/,
    );
    expect(c.clock.now() - t0).toBeGreaterThan(60_000);
    expect(read.state.bytes).toBe(0);
  });
});

describe("the latency model", () => {
  const cm = (name: string) => ({ metadata: { name, namespace: "default" }, data: { v: "1" } });

  it("modelled (the runners' default): a request answers as virtual time advances, after its cost model latency; zero (a bare cluster's default): at once", async () => {
    const modelled = await createSimCluster({ seed: 1, latency: "modelled" });
    try {
      expect(modelled.latency).toBe("modelled");
      const t0 = modelled.clock.now();
      await modelled.run(() => modelled.client.create(configmaps, cm("a")));
      const createMs = modelled.clock.now() - t0;
      // overhead + etcd round trip + commit (+ encoding): from the engine's cost model, a few ms.
      expect(createMs).toBeGreaterThan(3);
      expect(createMs).toBeLessThan(10);
      // The garbage collector reacts controllerReactionMs() after a change: a dependent of a deleted owner goes later.
      const owner = await modelled.run(() => modelled.client.create(configmaps, cm("owner")));
      const child = cm("child") as KubeObject;
      child.metadata!.ownerReferences = [
        { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid!, controller: true },
      ];
      await modelled.run(() => modelled.client.create(configmaps, child));
      await modelled.clock.step(20); // the collector's pass for the child's create has run
      const sent = modelled.clock.now();
      const childOf = () => modelled.engine.storage.get(modelled.engine.resource("configmaps"), "default", "child");
      void modelled.client.delete(configmaps, "owner", { namespace: "default" });
      await modelled.settle({ until: () => childOf() === undefined });
      expect(modelled.clock.now() - sent).toBeGreaterThanOrEqual(controllerReactionMs());
    } finally {
      await modelled.close();
    }
    const zero = await createSimCluster({ seed: 1, latency: "zero" });
    try {
      const t0 = zero.clock.now();
      await zero.client.create(configmaps, cm("a"));
      expect(zero.clock.now()).toBe(t0);
    } finally {
      await zero.close();
    }
    await expect(createSimCluster({ latency: "fast" as "zero" })).rejects.toThrow(
      'latency must be "modelled" or "zero", got "fast"',
    );
  });
});
