// HTTP conformance: the rows of reference/apiserver.md's LIST (§3.2, L1–L9) and WATCH (§4.2, W1–W8) tables as a
// client sees them on the wire, against the engine-backed server in virtual time. The engine's own tests check the
// routing (cache vs storage, waits); these check what comes out of the socket: codes, list metadata, continue
// tokens, event sequences, bookmarks and stream ends.
import { FakeClock, settle } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw, type LineStream, openStream, type RawResponse } from "./http-client.test-util.js";

const NS = "conf";
const CM = `/api/v1/namespaces/${NS}/configmaps`;

interface ListBody {
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Array<{ metadata: { name: string; resourceVersion: string } }>;
}

let s: EngineServer;
let clock: FakeClock;
/** RV after the five seed objects were created. */
let seededRV: number;

async function withTime(p: Promise<RawResponse>): Promise<RawResponse> {
  let done = false;
  void p.finally(() => {
    done = true;
  });
  for (let i = 0; i < 50 && !done; i++) {
    await settle();
    if (!done) await clock.step(250);
  }
  return p;
}

async function list(query: string): Promise<{ r: RawResponse; body: ListBody }> {
  const r = await fetchRaw(`${s.url}${CM}${query}`);
  return { r, body: r.json as ListBody };
}

const names = (b: ListBody) => b.items.map((i) => i.metadata.name);

async function watch(query: string): Promise<LineStream> {
  const w = await openStream(`${s.url}${CM}?watch=true&timeoutSeconds=600${query}`);
  expect(w.status).toBe(200);
  return w;
}

async function events(w: LineStream, n: number) {
  const out: Array<{ type: string; object: { metadata: Record<string, unknown> } }> = [];
  for (let i = 0; i < n; i++) out.push((await w.nextEvent()) as (typeof out)[number]);
  return out;
}

beforeAll(async () => {
  clock = new FakeClock();
  s = await startEngineServer(clock);
  for (const n of ["a", "b", "c", "d", "e"]) await s.engine.create("configmaps", NS, configMap(`cm-${n}`, {}, NS));
  seededRV = s.engine.currentResourceVersion;
});
afterAll(async () => {
  await s.close();
});

describe("LIST rows over HTTP", () => {
  it("L1: RV unset, no limit: every item, list RV = current RV, no continue", async () => {
    const { r, body } = await list("");
    expect(r.status).toBe(200);
    expect(body.kind).toBe("ConfigMapList");
    expect(names(body)).toEqual(["cm-a", "cm-b", "cm-c", "cm-d", "cm-e"]);
    expect(body.metadata.resourceVersion).toBe(String(s.engine.currentResourceVersion));
    expect(body.metadata).not.toHaveProperty("continue");
    expect(body.metadata).not.toHaveProperty("remainingItemCount");
  });

  it("L2: RV unset, limit=2: pages with a real-format continue token and remainingItemCount; last page has neither", async () => {
    const p1 = (await list("?limit=2")).body;
    expect(names(p1)).toEqual(["cm-a", "cm-b"]);
    expect(p1.metadata.remainingItemCount).toBe(3);
    const token = JSON.parse(Buffer.from(p1.metadata.continue!, "base64url").toString("utf8"));
    expect(token).toEqual({ v: "meta.k8s.io/v1", rv: Number(p1.metadata.resourceVersion), start: "cm-b\u0000" });
    expect(p1.metadata.continue).not.toMatch(/=/);
    const p2 = (await list(`?limit=2&continue=${p1.metadata.continue}`)).body;
    expect(names(p2)).toEqual(["cm-c", "cm-d"]);
    expect(p2.metadata.remainingItemCount).toBe(1);
    const p3 = (await list(`?limit=2&continue=${p2.metadata.continue}`)).body;
    expect(names(p3)).toEqual(["cm-e"]);
    expect(p3.metadata).not.toHaveProperty("continue");
    expect(p3.metadata).not.toHaveProperty("remainingItemCount");
  });

  it("L2: with a selector remainingItemCount is omitted", async () => {
    const { body } = await list("?limit=2&labelSelector=x!%3Dy");
    expect(names(body)).toEqual(["cm-a", "cm-b"]);
    expect(body.metadata.continue).toBeDefined();
    expect(body.metadata).not.toHaveProperty("remainingItemCount");
  });

  it("L3: RV=0 ignores limit: the full list in one page, no continue", async () => {
    const { r, body } = await list("?resourceVersion=0&limit=2");
    expect(r.status).toBe(200);
    expect(names(body)).toEqual(["cm-a", "cm-b", "cm-c", "cm-d", "cm-e"]);
    expect(body.metadata).not.toHaveProperty("continue");
  });

  it("L4: RV=N not older than: served at ≥ N; a future N waits 3 s then 504 TooLarge with Retry-After: 1", async () => {
    const { body } = await list(`?resourceVersion=${seededRV}`);
    expect(Number(body.metadata.resourceVersion)).toBeGreaterThanOrEqual(seededRV);
    const future = s.engine.currentResourceVersion + 10;
    const r = await withTime(fetchRaw(`${s.url}${CM}?resourceVersion=${future}`));
    expect(r.status).toBe(504);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.json).toMatchObject({ reason: "Timeout", details: { retryAfterSeconds: 1 } });
  });

  it("L5: RVM=Exact lists the state at exactly N (later writes invisible), response RV = N", async () => {
    const n = s.engine.currentResourceVersion;
    await s.engine.create("configmaps", NS, configMap("cm-later", {}, NS));
    const { body } = await list(`?resourceVersion=${n}&resourceVersionMatch=Exact`);
    expect(body.metadata.resourceVersion).toBe(String(n));
    expect(names(body)).not.toContain("cm-later");
    await s.engine.delete("configmaps", NS, "cm-later");
  });

  it("L6: continuing a token lists at the token's RV, so writes between pages are not seen", async () => {
    const p1 = (await list("?limit=3")).body;
    await s.engine.create("configmaps", NS, configMap("cm-z", {}, NS));
    const p2 = (await list(`?limit=3&continue=${p1.metadata.continue}`)).body;
    expect(p2.metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    expect(names(p2)).toEqual(["cm-d", "cm-e"]);
    await s.engine.delete("configmaps", NS, "cm-z");
  });

  it("L7/L8: GET an object with RV unset or 0; a missing one is 404 with the real message", async () => {
    for (const q of ["", "?resourceVersion=0"]) {
      const r = await fetchRaw(`${s.url}${CM}/cm-a${q}`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm-a" } });
      const miss = await fetchRaw(`${s.url}${CM}/nope${q}`);
      expect(miss.status).toBe(404);
      expect(miss.json).toMatchObject({ message: 'configmaps "nope" not found' });
    }
  });

  it("L9: GET an object at a future RV: 504 TooLarge with Retry-After: 1", async () => {
    const r = await withTime(fetchRaw(`${s.url}${CM}/cm-a?resourceVersion=${s.engine.currentResourceVersion + 5}`));
    expect(r.status).toBe(504);
    expect(r.headers["retry-after"]).toBe("1");
  });
});

describe("WATCH rows over HTTP", () => {
  it("W1: RV=N streams only changes after N, each event object with kind/apiVersion and its RV", async () => {
    const n = s.engine.currentResourceVersion;
    const w = await watch(`&resourceVersion=${n}`);
    await s.engine.update("configmaps", NS, "cm-a", configMap("cm-a", { v: "2" }, NS));
    await s.engine.delete("configmaps", NS, "cm-b");
    const ev = await events(w, 2);
    expect(ev.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["MODIFIED cm-a", "DELETED cm-b"]);
    expect(ev[0]).toMatchObject({ object: { kind: "ConfigMap", apiVersion: "v1" } });
    expect(Number(ev[1]!.object.metadata.resourceVersion)).toBe(s.engine.currentResourceVersion);
    w.close();
    await s.engine.create("configmaps", NS, configMap("cm-b", {}, NS));
  });

  it("W1: an RV older than the ring buffer: 200, one ERROR 410 event, end of stream", async () => {
    const old = s.engine.currentResourceVersion;
    await s.engine.update("configmaps", NS, "cm-c", configMap("cm-c", { v: "2" }, NS));
    s.engine.reinitializeCache("configmaps");
    const w = await watch(`&resourceVersion=${old - 1}`);
    expect(await w.nextEvent()).toMatchObject({
      type: "ERROR",
      object: {
        kind: "Status",
        code: 410,
        reason: "Expired",
        message: expect.stringMatching(/^too old resource version/),
      },
    });
    expect(await w.nextLine()).toBeUndefined();
    expect(await w.ended).toBe(true);
  });

  for (const [row, query] of [
    ["W2: RV unset (defaulted to sendInitialEvents)", ""],
    ["W3: RV=0 (defaulted to sendInitialEvents)", "&resourceVersion=0"],
    [
      "W4: RV=N, sendInitialEvents=true, RVM=NotOlderThan",
      "&resourceVersion=@N&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
    ],
  ] as const) {
    it(`${row}: one ADDED per object in key order, then the annotated BOOKMARK at ≥ the list RV`, async () => {
      const rv = s.engine.currentResourceVersion;
      const w = await watch(`&allowWatchBookmarks=true${query.replace("@N", String(rv))}`);
      const added = await events(w, 5);
      expect(added.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
        "ADDED cm-a",
        "ADDED cm-b",
        "ADDED cm-c",
        "ADDED cm-d",
        "ADDED cm-e",
      ]);
      await clock.step(2000);
      const bm = await w.nextEvent();
      expect(bm).toMatchObject({
        type: "BOOKMARK",
        object: { kind: "ConfigMap", metadata: { annotations: { "k8s.io/initial-events-end": "true" } } },
      });
      expect(Number((bm!.object.metadata as { resourceVersion: string }).resourceVersion)).toBeGreaterThanOrEqual(rv);
      w.close();
    });
  }

  it("W2 without allowWatchBookmarks: the initial events have no end marker; the next line is a real change", async () => {
    const w = await watch("");
    await events(w, 5);
    await clock.step(2000);
    await s.engine.update("configmaps", NS, "cm-e", configMap("cm-e", { v: "3" }, NS));
    expect(await w.nextEvent()).toMatchObject({ type: "MODIFIED", object: { metadata: { name: "cm-e" } } });
    w.close();
  });

  it("W5: RV=0, sendInitialEvents=false, RVM=NotOlderThan: no synthetic events, changes from now", async () => {
    const w = await watch("&resourceVersion=0&sendInitialEvents=false&resourceVersionMatch=NotOlderThan");
    await s.engine.update("configmaps", NS, "cm-d", configMap("cm-d", { v: "9" }, NS));
    expect(await w.nextEvent()).toMatchObject({ type: "MODIFIED", object: { metadata: { name: "cm-d" } } });
    w.close();
  });

  it("W6: WatchList off: legacy RV=0 gets synthetic ADDED and no marker; sendInitialEvents is the real 422", async () => {
    const off = await startEngineServer(new FakeClock(), { watchList: false });
    try {
      await off.engine.create("configmaps", NS, configMap("only", {}, NS));
      const w = await openStream(
        `${off.url}${CM}?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=60`,
      );
      expect(await w.nextEvent()).toMatchObject({ type: "ADDED", object: { metadata: { name: "only" } } });
      await off.engine.create("configmaps", NS, configMap("next", {}, NS));
      expect(await w.nextEvent()).toMatchObject({ type: "ADDED", object: { metadata: { name: "next" } } });
      w.close();
      const r = await fetchRaw(
        `${off.url}${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({
        reason: "Invalid",
        message:
          'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      });
    } finally {
      await off.close();
    }
  });

  it("W8: while the cache re-initializes a watch is HTTP 429 with Retry-After, not an event", async () => {
    s.engine.reinitializeCache("configmaps", 3000);
    const r = await fetchRaw(`${s.url}${CM}?watch=true&resourceVersion=0`);
    expect(r.status).toBe(429);
    expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    await clock.step(3000);
    await settle();
  });

  it("selector transitions: entering the selector is ADDED, leaving it is DELETED with the event's RV", async () => {
    const w = await watch(`&resourceVersion=${s.engine.currentResourceVersion}&labelSelector=team%3Dblue`);
    const blue = { ...configMap("cm-a", { v: "4" }, NS) };
    blue.metadata = { ...blue.metadata, labels: { team: "blue" } };
    await s.engine.update("configmaps", NS, "cm-a", blue);
    expect(await w.nextEvent()).toMatchObject({ type: "ADDED", object: { metadata: { name: "cm-a" } } });
    await s.engine.update("configmaps", NS, "cm-a", configMap("cm-a", { v: "5" }, NS));
    const del = await w.nextEvent();
    expect(del).toMatchObject({ type: "DELETED", object: { metadata: { name: "cm-a", labels: { team: "blue" } } } });
    expect((del!.object.metadata as { resourceVersion: string }).resourceVersion).toBe(
      String(s.engine.currentResourceVersion),
    );
    w.close();
  });

  it("timeoutSeconds: the server ends the body cleanly at the deadline, without an event", async () => {
    const w = await openStream(
      `${s.url}${CM}?watch=true&resourceVersion=${s.engine.currentResourceVersion}&timeoutSeconds=5`,
    );
    await settle();
    await clock.step(5000);
    expect(await w.nextLine()).toBeUndefined();
    expect(await w.ended).toBe(true);
  });

  it("watching one object by URL name (legacy /watch/ path) sees only that object", async () => {
    const rv = s.engine.currentResourceVersion;
    const w = await openStream(
      `${s.url}/api/v1/watch/namespaces/${NS}/configmaps/cm-e?resourceVersion=${rv}&timeoutSeconds=60`,
    );
    await s.engine.update("configmaps", NS, "cm-d", configMap("cm-d", { v: "10" }, NS));
    await s.engine.update("configmaps", NS, "cm-e", configMap("cm-e", { v: "10" }, NS));
    expect(await w.nextEvent()).toMatchObject({ type: "MODIFIED", object: { metadata: { name: "cm-e" } } });
    w.close();
  });
});
