// Transport end to end against the simulated apiserver's HTTP and HTTPS faces, authenticated from kubeconfig files
// the simulator writes (writeKubeconfig): bearer token over HTTP and HTTPS, client certificate over HTTPS, and a wrong
// token, which must surface as a typed 401 StatusError from the client and as the reflector's last error
// (code 401, reason Unauthorized) in its status. Lives in test/ because it joins two packages that may not import
// each other (client ↛ sim-apiserver).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUnauthorized, type KubeObject, type WatchEvent } from "@informer-ts/apimachinery";
import { Reflector, type ReflectorStatus, silentLogger } from "@informer-ts/cache";
import { RecordingStore, startRun } from "@informer-ts/cache/testing";
import { builtinResources, KubeClient, listWatchFor, loadClientConfig } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import {
  EngineBackend,
  generatePki,
  type KubeconfigOptions,
  SimApiServer,
  SimHttpServer,
  type SimPki,
  writeKubeconfig,
} from "@informer-ts/sim-apiserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const { configmaps } = builtinResources;
const TOKEN = "sim-token";

let dir: string;
let pki: SimPki;
let clock: FakeClock;
let engine: SimApiServer;
const servers: Record<"http" | "https", { sim: SimHttpServer; url: string }> = {} as never;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "informer-ts-client-sim-"));
  pki = generatePki();
  clock = new FakeClock();
  // One engine behind both faces, on a FakeClock: watch timeouts and bookmarks never fire on their own.
  engine = new SimApiServer({ clock, rand: seededRand(3) });
  const backend = new EngineBackend(engine);
  for (const kind of ["http", "https"] as const) {
    const sim = new SimHttpServer({
      backend,
      clock,
      ...(kind === "https" && { tls: pki }),
      auth: { tokens: [TOKEN], clientCertificates: kind === "https" },
    });
    servers[kind] = { sim, url: await sim.start() };
  }
});

afterAll(async () => {
  engine?.stop();
  for (const s of Object.values(servers)) await s.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a kubeconfig with the simulator's helper and builds a client from it (no throttling, no retries). */
async function clientFrom(file: string, opts: KubeconfigOptions): Promise<KubeClient> {
  const path = join(dir, file);
  writeKubeconfig(path, opts);
  const cfg = await loadClientConfig({ kubeconfigPath: path });
  return new KubeClient(cfg, { clock, rateLimiter: null, maxRetries: 0, quiet: true });
}

/** Lets sockets make progress until `cond` holds (bounded in event-loop turns, never a timed wait). */
async function ioUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  expect(cond()).toBe(true);
}

async function nextOf<T>(it: AsyncIterator<T>): Promise<T> {
  const r = await it.next();
  if (r.done === true) throw new Error("watch ended early");
  return r.value;
}

const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { k: name } });

/** Creates, lists, then watches from the list's RV and sees the next write: the full transport round trip. */
async function roundTrip(c: KubeClient, prefix: string): Promise<void> {
  const created = await c.create(configmaps, cm(`${prefix}-a`));
  expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
  const lw = listWatchFor(c, configmaps, { namespace: "default" });
  const list = await lw.list({});
  expect(list.items.map((o) => o.metadata?.name)).toContain(`${prefix}-a`);
  const w = await lw.watch({
    resourceVersion: list.metadata.resourceVersion,
    allowWatchBookmarks: true,
    timeoutSeconds: 60,
  });
  try {
    const it = w[Symbol.asyncIterator]();
    const next = nextOf(it);
    await c.create(configmaps, cm(`${prefix}-b`));
    const ev = (await next) as WatchEvent;
    expect(ev.type).toBe("ADDED");
    expect((ev.object as KubeObject).metadata?.name).toBe(`${prefix}-b`);
    const del = nextOf(it);
    await c.delete(configmaps, `${prefix}-a`, { namespace: "default" });
    expect(((await del) as WatchEvent).type).toBe("DELETED");
  } finally {
    w.stop();
  }
}

describe("KubeClient against the simulated apiserver, authenticated from a kubeconfig it wrote", () => {
  it("HTTP with a bearer token: create, list, watch", async () => {
    const c = await clientFrom("http-token.kubeconfig", {
      server: servers.http.url,
      token: TOKEN,
      namespace: "team-a",
    });
    try {
      expect(c.config.namespace).toBe("team-a"); // the kubeconfig context's namespace is read
      await roundTrip(c, "http-token");
    } finally {
      await c.close();
    }
  });

  it("HTTPS with a bearer token (CA from the kubeconfig): create, list, watch", async () => {
    const c = await clientFrom("https-token.kubeconfig", { server: servers.https.url, ca: pki.ca.cert, token: TOKEN });
    try {
      await roundTrip(c, "https-token");
    } finally {
      await c.close();
    }
  });

  it("HTTPS with a client certificate: create, list, watch", async () => {
    const c = await clientFrom("https-cert.kubeconfig", {
      server: servers.https.url,
      ca: pki.ca.cert,
      clientCert: pki.client.cert,
      clientKey: pki.client.key,
    });
    try {
      await roundTrip(c, "https-cert");
    } finally {
      await c.close();
    }
  });

  it("a wrong token is a typed 401 from list and watch, over HTTP and HTTPS", async () => {
    for (const kind of ["http", "https"] as const) {
      const c = await clientFrom(`${kind}-wrong.kubeconfig`, {
        server: servers[kind].url,
        ...(kind === "https" && { ca: pki.ca.cert }),
        token: "not-the-token",
      });
      try {
        const err = await c.list(configmaps).catch((e: unknown) => e);
        expect(isUnauthorized(err)).toBe(true);
        expect(err).toMatchObject({ code: 401 });
        const werr = await c.watch(configmaps).catch((e: unknown) => e);
        expect(isUnauthorized(werr)).toBe(true);
      } finally {
        await c.close();
      }
    }
  });

  it("a reflector over HTTPS with a client certificate syncs by watch-list and follows writes", async () => {
    const c = await clientFrom("reflector-cert.kubeconfig", {
      server: servers.https.url,
      ca: pki.ca.cert,
      clientCert: pki.client.cert,
      clientKey: pki.client.key,
    });
    const store = new RecordingStore();
    const r = new Reflector(listWatchFor(c, configmaps, { namespace: "default" }), undefined, store, {
      clock,
      rand: { float: () => 0 },
      logger: silentLogger,
      name: "https-cert",
    });
    const run = startRun(r);
    try {
      await ioUntil(() => r.status().phase === "watch-listing" && engine.caches.watchers("configmaps").length === 1);
      await clock.step(1300); // the end bookmark comes with the cache's next bookmark tick
      await ioUntil(() => r.status().hasSynced);
      await c.create(configmaps, cm("via-reflector"));
      await ioUntil(() => store.items.has("default/via-reflector"));
      const truth = engine.storage.snapshot(engine.resource("configmaps")).map(([, o]) => o.metadata?.name);
      expect([...store.items.values()].map((o) => o.metadata?.name).sort()).toEqual(truth.sort());
      expect(r.status()).toMatchObject({ phase: "watching", counts: { watchLists: 1, lists: 0 } });
    } finally {
      await run.stop();
      await c.close();
    }
  });

  it("a wrong token shows in the reflector's status as the last error: code 401, reason Unauthorized (not a sync timeout)", async () => {
    const c = await clientFrom("reflector-wrong.kubeconfig", {
      server: servers.https.url,
      ca: pki.ca.cert,
      token: "not-the-token",
    });
    const r = new Reflector(listWatchFor(c, configmaps, { namespace: "default" }), undefined, new RecordingStore(), {
      clock,
      rand: { float: () => 0 },
      logger: silentLogger,
      name: "unauthorized",
    });
    const statuses: ReflectorStatus[] = [];
    const sub = r.status$.subscribe((s) => statuses.push(s));
    const run = startRun(r);
    try {
      // watch-list → 401 → LIST fallback → 401 → backoff.
      await ioUntil(() => r.status().phase === "backing-off");
      expect(r.status()).toMatchObject({
        phase: "backing-off",
        hasSynced: false,
        lastError: { code: 401, reason: "Unauthorized", during: "list" },
        counts: { watchListFallbacks: 1, relists: { "list-error": 1 } },
      });
      expect(statuses.some((s) => s.lastError?.during === "watch-list" && s.lastError.code === 401)).toBe(true);
    } finally {
      await run.stop();
      sub.unsubscribe();
      await c.close();
    }
    expect(r.status().phase).toBe("stopped");
  });
});
