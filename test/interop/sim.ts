// Starts an in-process simulated apiserver on 127.0.0.1:0 for the interop tests, optionally over HTTPS with a
// token and/or client certificates, and writes a kubeconfig for it.
import { join } from "node:path";
import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { fetchRaw } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { writeKubeconfig } from "../../packages/sim-apiserver/src/http/kubeconfig.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";
import { generatePki, type SimPki } from "../../packages/sim-apiserver/src/http/tls.js";
import { createTestBackend } from "./backend.js";
import { freshDir } from "./tools.js";

export interface SimHandle {
  readonly url: string;
  /** The engine behind the HTTP face (register custom resources, create objects, inject faults). */
  readonly engine: SimApiServer;
  readonly server: SimHttpServer;
  readonly pki: SimPki | undefined;
  /** A kubeconfig for this server (token if configured, else client cert if configured, else none). */
  readonly kubeconfig: string;
  readonly dir: string;
  /** POSTs an object through the HTTP API (works for any backend). */
  create(obj: KubeObject): Promise<KubeObject>;
  close(): Promise<void>;
}

export interface SimOptions {
  readonly tls?: boolean;
  readonly token?: string;
  readonly clientCert?: boolean;
}

export async function startSim(opts: SimOptions = {}): Promise<SimHandle> {
  const pki = opts.tls === true ? generatePki() : undefined;
  const backend = createTestBackend();
  const server = new SimHttpServer({
    backend,
    ...(pki !== undefined && { tls: pki }),
    ...((opts.token !== undefined || opts.clientCert === true) && {
      auth: {
        ...(opts.token !== undefined && { tokens: [opts.token] }),
        ...(opts.clientCert === true && { clientCertificates: true }),
      },
    }),
  });
  const url = await server.start();
  const dir = freshDir("sim");
  const kubeconfig = join(dir, "kubeconfig.yaml");
  writeKubeconfig(kubeconfig, {
    server: url,
    ...(pki !== undefined && { ca: pki.ca.cert }),
    ...(opts.token !== undefined && { token: opts.token }),
    ...(opts.token === undefined &&
      opts.clientCert === true &&
      pki !== undefined && {
        clientCert: pki.client.cert,
        clientKey: pki.client.key,
      }),
  });
  const auth: Record<string, string> = opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {};
  return {
    url,
    engine: backend.engine,
    server,
    pki,
    kubeconfig,
    dir,
    async create(obj) {
      const ns = obj.metadata?.namespace ?? "default";
      const r = await fetchRaw(`${url}/api/v1/namespaces/${ns}/configmaps`, {
        method: "POST",
        body: JSON.stringify(obj),
        headers: { "content-type": "application/json", ...auth },
        ...(pki !== undefined && { ca: pki.ca.cert }),
        ...(opts.token === undefined &&
          opts.clientCert === true &&
          pki !== undefined && {
            cert: pki.client.cert,
            key: pki.client.key,
          }),
      });
      if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
      return r.json as KubeObject;
    },
    async close() {
      await server.close();
      backend.engine.stop();
    },
  };
}

export function configMap(name: string, data: Record<string, string> = { k: "v" }): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data };
}
