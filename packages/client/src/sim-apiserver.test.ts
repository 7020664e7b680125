// End-to-end against the simulated apiserver's HTTPS face: kubeconfig written by the sim, loaded by
// loadClientConfig, then list / watch through KubeClient and listWatchFor.
//
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUnauthorized, type KubeObject, type WatchEvent } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EngineBackend,
  generatePki,
  SimApiServer,
  SimHttpServer,
  type SimPki,
  writeKubeconfig,
} from "../../sim-apiserver/src/index.js";
import { loadClientConfig } from "./kubeconfig.js";
import { listWatchFor } from "./listwatch.js";
import { builtinResources } from "./resources.js";
import { KubeClient } from "./rest-client.js";

const { configmaps } = builtinResources;

let dir: string;
let pki: SimPki;
let sim: SimHttpServer;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "informer-ts-client-sim-"));
  pki = generatePki();
  sim = new SimHttpServer({
    backend: new EngineBackend(new SimApiServer()),
    tls: pki,
    auth: { tokens: ["sim-token"], clientCertificates: true },
  });
  url = await sim.start();
});

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function clientFrom(kubeconfigPath: string): Promise<KubeClient> {
  return new KubeClient(await loadClientConfig({ kubeconfigPath }));
}

async function nextOf<T>(it: AsyncIterator<T>): Promise<T> {
  const r = await it.next();
  if (r.done === true) throw new Error("watch ended early");
  return r.value;
}

const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { k: name } });

describe("KubeClient against the simulated apiserver (HTTPS)", () => {
  it("kubeconfig with a token: create, list, then watch from the list's RV sees the next create", async () => {
    const path = join(dir, "token.kubeconfig");
    writeKubeconfig(path, { server: url, ca: pki.ca.cert, token: "sim-token", namespace: "default" });
    const cfg = await loadClientConfig({ kubeconfigPath: path });
    expect(cfg.namespace).toBe("default");
    const c = new KubeClient(cfg);
    try {
      const created = await c.create(configmaps, cm("token-a"));
      expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
      const list = await c.list(configmaps, { namespace: "default" });
      expect(list.items.map((o) => o.metadata?.name)).toContain("token-a");
      const w = await c.watch(configmaps, { namespace: "default", resourceVersion: list.metadata.resourceVersion });
      const it = w[Symbol.asyncIterator]();
      const next = nextOf(it);
      await c.create(configmaps, cm("token-b"));
      const ev = (await next) as WatchEvent;
      expect(ev.type).toBe("ADDED");
      expect((ev.object as KubeObject).metadata?.name).toBe("token-b");
      w.stop();
    } finally {
      await c.close();
    }
  });

  it("kubeconfig with a client certificate: listWatchFor lists and watches", async () => {
    const path = join(dir, "cert.kubeconfig");
    writeKubeconfig(path, { server: url, ca: pki.ca.cert, clientCert: pki.client.cert, clientKey: pki.client.key });
    const c = await clientFrom(path);
    try {
      const lw = listWatchFor(c, configmaps, { namespace: "default" });
      const list = await lw.list({});
      expect(list.items.length).toBeGreaterThan(0);
      const w = await lw.watch({
        resourceVersion: list.metadata.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 60,
      });
      const it = w[Symbol.asyncIterator]();
      const next = nextOf(it);
      await c.delete(configmaps, "token-a", { namespace: "default" });
      const ev = (await next) as WatchEvent;
      expect(ev.type).toBe("DELETED");
      w.stop();
    } finally {
      await c.close();
    }
  });

  it("a wrong token surfaces as a typed 401 StatusError", async () => {
    const path = join(dir, "wrong.kubeconfig");
    writeKubeconfig(path, { server: url, ca: pki.ca.cert, token: "not-the-token" });
    const c = await clientFrom(path);
    try {
      const err = await c.list(configmaps).catch((e: unknown) => e);
      expect(isUnauthorized(err)).toBe(true);
      const werr = await c.watch(configmaps).catch((e: unknown) => e);
      expect(isUnauthorized(werr)).toBe(true);
    } finally {
      await c.close();
    }
  });
});
