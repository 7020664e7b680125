import type { TLSSocket } from "node:tls";
import { isUnauthorized } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import { generateTestPki, type TestPki } from "./internal/pki.test-util.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import { KubeClient } from "./rest-client.js";

const { configmaps } = builtinResources;

let pki: TestPki;
let otherPki: TestPki;
let server: TestServer;
const seenClientCN: (string | undefined)[] = [];

beforeAll(async () => {
  pki = generateTestPki();
  otherPki = generateTestPki("some other CA");
  server = await startServer(
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cn = peer !== null && typeof peer === "object" && "subject" in peer ? peer.subject?.CN : undefined;
      seenClientCN.push(Array.isArray(cn) ? cn.join(",") : cn);
      const authorized = (req.socket as TLSSocket).authorized;
      if (req.headers.authorization === "Bearer good" || (authorized && cn !== undefined)) {
        sendJSON(res, 200, { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "3" }, items: [] });
        return;
      }
      sendJSON(res, 401, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    },
    { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: false },
  );
});

afterAll(async () => {
  await server?.close();
});

async function withClient<T>(c: KubeClient, fn: (c: KubeClient) => Promise<T>): Promise<T> {
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

describe("HTTPS transport (newAgent)", () => {
  it("trusts the configured CA and sends the bearer token", async () => {
    const list = await withClient(
      new KubeClient({ server: server.url, ca: pki.ca.cert, token: "good" }, { quiet: true }),
      (c) => c.list(configmaps),
    );
    expect(list.metadata.resourceVersion).toBe("3");
  });

  it("presents the client certificate", async () => {
    const me = pki.client("jane", "devs");
    const before = seenClientCN.length;
    await withClient(
      new KubeClient({ server: server.url, ca: pki.ca.cert, clientCert: me.cert, clientKey: me.key }, { quiet: true }),
      (c) => c.list(configmaps),
    );
    expect(seenClientCN.slice(before)).toEqual(["jane"]);
  });

  it("a certificate from an auth provider (exec plugin) is presented, and a rotated one replaces it", async () => {
    let current = pki.client("exec-user-1");
    const before = seenClientCN.length;
    const c = new KubeClient(
      {
        server: server.url,
        ca: pki.ca.cert,
        authProvider: async () => ({ clientCert: current.cert, clientKey: current.key }),
      },
      { quiet: true },
    );
    await withClient(c, async () => {
      await c.list(configmaps);
      current = pki.client("exec-user-2");
      await c.list(configmaps);
    });
    expect(seenClientCN.slice(before)).toEqual(["exec-user-1", "exec-user-2"]);
  });

  it("a wrong token is a typed 401 StatusError", async () => {
    const err = await withClient(
      new KubeClient({ server: server.url, ca: pki.ca.cert, token: "bad" }, { quiet: true }),
      (c) => c.list(configmaps).catch((e: unknown) => e),
    );
    expect(isUnauthorized(err)).toBe(true);
  });

  it("a server certificate from another CA is rejected; insecureSkipTLSVerify accepts it", async () => {
    const err = await withClient(
      new KubeClient({ server: server.url, ca: otherPki.ca.cert, token: "good" }, { maxRetries: 0, quiet: true }),
      (c) => c.list(configmaps).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(Error);
    const chain: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause)
      chain.push(`${(e as { code?: string }).code} ${e.message}`);
    expect(chain.join(" | ")).toMatch(/certificate|UNABLE_TO_VERIFY|SELF_SIGNED/i);
    const ok = await withClient(
      new KubeClient({ server: server.url, insecureSkipTLSVerify: true, token: "good" }, { quiet: true }),
      (c) => c.list(configmaps),
    );
    expect(ok.items).toEqual([]);
  });

  it("tlsServerName verifies against another name in the certificate", async () => {
    const ok = await withClient(
      new KubeClient(
        { server: server.url, ca: pki.ca.cert, token: "good", tlsServerName: "localhost" },
        { quiet: true },
      ),
      (c) => c.list(configmaps),
    );
    expect(ok.metadata.resourceVersion).toBe("3");
    const err = await withClient(
      new KubeClient(
        { server: server.url, ca: pki.ca.cert, token: "good", tlsServerName: "nothere.example" },
        { maxRetries: 0, quiet: true },
      ),
      (c) => c.list(configmaps).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(Error);
  });
});
