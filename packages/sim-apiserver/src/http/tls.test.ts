import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fetchRaw } from "./http-client.test-util.js";
import { renderKubeconfig } from "./kubeconfig.js";
import { generatePki, type SimPki } from "./tls.js";

describe("generatePki", () => {
  let pki: SimPki;
  beforeAll(() => {
    pki = generatePki({ keyBits: 2048 });
  });

  it("CA is a CA; serving cert has the loopback SANs and is signed by the CA", () => {
    const ca = new X509Certificate(pki.ca.cert);
    const serving = new X509Certificate(pki.serving.cert);
    const client = new X509Certificate(pki.client.cert);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toContain("DNS:localhost");
    expect(serving.subjectAltName).toContain("IP Address:127.0.0.1");
    expect(serving.checkHost("localhost")).toBe("localhost");
    expect(serving.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(client.subject).toContain("CN=sim-admin");
    expect(client.subject).toContain("O=system:masters");
  });

  it("a TLS client trusting only the CA connects to 127.0.0.1 and localhost, and presents the client cert", async () => {
    const srv = createServer(
      { key: pki.serving.key, cert: pki.serving.cert, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const s = req.socket as import("node:tls").TLSSocket;
        res.end(JSON.stringify({ authorized: s.authorized, cn: s.getPeerCertificate()?.subject?.CN ?? null }));
      },
    );
    srv.listen(0, "127.0.0.1");
    await once(srv, "listening");
    const port = (srv.address() as AddressInfo).port;
    try {
      const anon = await fetchRaw(`https://127.0.0.1:${port}/`, { ca: pki.ca.cert });
      expect(anon.json).toEqual({ authorized: false, cn: null });
      const withCert = await fetchRaw(`https://localhost:${port}/`, {
        ca: pki.ca.cert,
        cert: pki.client.cert,
        key: pki.client.key,
      });
      expect(withCert.json).toEqual({ authorized: true, cn: "sim-admin" });
      await expect(fetchRaw(`https://127.0.0.1:${port}/`)).rejects.toThrow(
        /self[- ]signed|unable to verify|certificate/i,
      );
    } finally {
      srv.close();
    }
  });

  afterAll(() => {});
});

describe("renderKubeconfig", () => {
  it("writes one cluster/user/context with embedded base64 data", () => {
    const cfg = parse(
      renderKubeconfig({
        server: "https://127.0.0.1:6443",
        ca: "CA-PEM",
        token: "t0k",
        clientCert: "C",
        clientKey: "K",
      }),
    );
    expect(cfg).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [
        {
          name: "sim",
          cluster: {
            server: "https://127.0.0.1:6443",
            "certificate-authority-data": Buffer.from("CA-PEM").toString("base64"),
          },
        },
      ],
      users: [
        {
          name: "sim",
          user: {
            token: "t0k",
            "client-certificate-data": Buffer.from("C").toString("base64"),
            "client-key-data": Buffer.from("K").toString("base64"),
          },
        },
      ],
      contexts: [{ name: "sim", context: { cluster: "sim", user: "sim", namespace: "default" } }],
      "current-context": "sim",
    });
  });
});
