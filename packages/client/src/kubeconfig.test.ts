import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { isUnauthorized } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import { type ClientConfig, ConfigError } from "./client-config.js";
import { generateTestPki, type TestPki } from "./internal/pki.test-util.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import { inClusterConfig, type KubeConfigSource, loadClientConfig, SERVICE_ACCOUNT_ROOT } from "./kubeconfig.js";
import { KubeClient } from "./rest-client.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
// kubeconfig files are YAML; JSON is YAML, so JSON.stringify writes valid ones.

let dir: string;
let pki: TestPki;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "informer-ts-kubeconfig-"));
  pki = generateTestPki();
  server = await startServer(
    (req, res) => {
      const sock = req.socket as TLSSocket;
      const cn = sock.authorized ? sock.getPeerCertificate().subject?.CN : undefined;
      const auth = req.headers.authorization;
      if (auth === "Bearer good" || auth === "Bearer exec-token" || cn === "kube-admin") {
        sendJSON(res, 200, {
          kind: "ConfigMapList",
          apiVersion: "v1",
          metadata: { resourceVersion: "77" },
          items: [{ metadata: { name: "cm", namespace: "default" }, data: { who: auth ?? `cert:${cn}` } }],
        });
      } else {
        sendJSON(res, 401, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          reason: "Unauthorized",
          code: 401,
        });
      }
    },
    { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: false },
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface UserSpec {
  [k: string]: unknown;
}

function kubeconfig(opts: {
  server?: string;
  cluster?: Record<string, unknown>;
  user?: UserSpec;
  namespace?: string;
  contexts?: { name: string; namespace?: string }[];
  current?: string;
}): string {
  const contexts = opts.contexts ?? [
    { name: "main", ...(opts.namespace !== undefined && { namespace: opts.namespace }) },
  ];
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "c",
        cluster: { server: opts.server ?? server.url, "certificate-authority-data": b64(pki.ca.cert), ...opts.cluster },
      },
    ],
    users: [{ name: "u", user: opts.user ?? { token: "good" } }],
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: "c", user: "u", ...(c.namespace !== undefined && { namespace: c.namespace }) },
    })),
    "current-context": opts.current ?? contexts[0]!.name,
  });
}

async function listWith(config: ClientConfig): Promise<unknown> {
  const c = new KubeClient(config, { quiet: true });
  try {
    return await c.list(builtinResources.configmaps, { namespace: "default" });
  } finally {
    await c.close();
  }
}

describe("loadClientConfig (kubeconfig via @kubernetes/client-node)", () => {
  it("maps server, CA data, token and namespace; the config lists over HTTPS", async () => {
    const cfg = await loadClientConfig({ kubeconfigString: kubeconfig({ namespace: "team-a" }), qps: 50, burst: 100 });
    expect(cfg.server).toBe(server.url);
    expect(cfg.token).toBe("good");
    expect(cfg.namespace).toBe("team-a");
    expect(cfg.contextName).toBe("main");
    expect(cfg.qps).toBe(50);
    expect(cfg.burst).toBe(100);
    expect(Buffer.from(cfg.ca as Uint8Array).toString()).toBe(pki.ca.cert);
    expect(cfg.authProvider).toBeUndefined();
    expect(await listWith(cfg)).toMatchObject({ metadata: { resourceVersion: "77" } });
  });

  it("a client-node KubeConfig loaded by the caller is a KubeConfigSource and is used as loaded", async () => {
    const { KubeConfig } = await import("@kubernetes/client-node");
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig({ namespace: "team-b" }));
    const source: KubeConfigSource = kc; // type-level: client-node's class fits the structural interface
    const cfg = await loadClientConfig({ kubeConfig: source });
    expect(cfg.server).toBe(server.url);
    expect(cfg.token).toBe("good");
    expect(cfg.namespace).toBe("team-b");
    expect(await listWith(cfg)).toMatchObject({ metadata: { resourceVersion: "77" } });
  });

  it("HTTPS + client certificate from files relative to the kubeconfig's directory", async () => {
    const sub = join(dir, "certs-test");
    mkdirSync(sub, { recursive: true });
    const admin = pki.client("kube-admin", "system:masters");
    writeFileSync(join(sub, "ca.crt"), pki.ca.cert);
    writeFileSync(join(sub, "admin.crt"), admin.cert);
    writeFileSync(join(sub, "admin.key"), admin.key);
    const path = join(sub, "config");
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: server.url, "certificate-authority": "ca.crt" } }],
        users: [{ name: "u", user: { "client-certificate": "admin.crt", "client-key": "admin.key" } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    );
    const cfg = await loadClientConfig({ kubeconfigPath: path });
    expect(cfg.namespace).toBe("default");
    expect(Buffer.from(cfg.clientCert as Uint8Array).toString()).toBe(admin.cert);
    const list = (await listWith(cfg)) as { items: { data: { who: string } }[] };
    expect(list.items[0]!.data.who).toBe("cert:kube-admin");
  });

  it("a wrong token in the kubeconfig surfaces as a typed 401", async () => {
    const cfg = await loadClientConfig({ kubeconfigString: kubeconfig({ user: { token: "wrong" } }) });
    expect(isUnauthorized(await listWith(cfg).catch((e: unknown) => e))).toBe(true);
  });

  it("--context overrides current-context; an unknown context is a ConfigError", async () => {
    const text = kubeconfig({
      contexts: [
        { name: "one", namespace: "n1" },
        { name: "two", namespace: "n2" },
      ],
    });
    expect((await loadClientConfig({ kubeconfigString: text })).namespace).toBe("n1");
    const two = await loadClientConfig({ kubeconfigString: text, context: "two" });
    expect([two.contextName, two.namespace]).toEqual(["two", "n2"]);
    await expect(loadClientConfig({ kubeconfigString: text, context: "three" })).rejects.toThrow(
      'invalid configuration: context "three" does not exist',
    );
    await expect(loadClientConfig({ kubeconfigString: kubeconfig({ current: "nope" }) })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it("maps insecure-skip-tls-verify, tls-server-name, basic auth and impersonation; rejects proxy-url", async () => {
    const cfg = await loadClientConfig({
      kubeconfigString: kubeconfig({
        cluster: { "insecure-skip-tls-verify": true, "tls-server-name": "localhost" },
        user: { username: "admin", password: "pw", as: "jane" },
      }),
    });
    expect(cfg.insecureSkipTLSVerify).toBe(true);
    expect(cfg.tlsServerName).toBe("localhost");
    expect([cfg.username, cfg.password]).toEqual(["admin", "pw"]);
    expect(cfg.headers).toEqual({ "Impersonate-User": "jane" });
    await expect(
      loadClientConfig({ kubeconfigString: kubeconfig({ cluster: { "proxy-url": "http://proxy:3128" } }) }),
    ).rejects.toThrow(/proxy-url is not supported/);
  });

  it("an exec credential plugin becomes an auth provider whose token is sent", async () => {
    const script = join(dir, "exec-plugin.mjs");
    const counter = join(dir, "exec-count");
    writeFileSync(
      script,
      [
        'import { appendFileSync } from "node:fs";',
        `appendFileSync(${JSON.stringify(counter)}, "x");`,
        "const expirationTimestamp = new Date(Date.now() + 3600_000).toISOString();",
        'process.stdout.write(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential",',
        '  status: { token: "exec-token", expirationTimestamp } }));',
      ].join("\n"),
    );
    const cfg = await loadClientConfig({
      kubeconfigString: kubeconfig({
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: process.execPath,
            args: [script],
            interactiveMode: "Never",
          },
        },
      }),
    });
    expect(cfg.authProvider).toBeDefined();
    const c = new KubeClient(cfg, { quiet: true });
    try {
      const a = await c.list(builtinResources.configmaps);
      expect(a.items[0]?.data?.who).toBe("Bearer exec-token");
      await c.list(builtinResources.configmaps);
    } finally {
      await c.close();
    }
    // Cached until expirationTimestamp: the plugin ran once for two requests.
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(counter, "utf8")).toBe("x");
  });

  it("$KUBECONFIG (via env), then ~/.kube/config, then in-cluster, else a ConfigError", async () => {
    const a = join(dir, "a.yaml");
    writeFileSync(a, kubeconfig({ namespace: "from-env" }));
    expect((await loadClientConfig({ env: { KUBECONFIG: a } })).namespace).toBe("from-env");

    const home = join(dir, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    writeFileSync(join(home, ".kube", "config"), kubeconfig({ namespace: "from-home" }));
    expect((await loadClientConfig({ env: { HOME: home } })).namespace).toBe("from-home");

    const err = await loadClientConfig({ env: { HOME: join(dir, "nobody") } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/no configuration has been provided/);
  });

  it("in-cluster: service account token (re-read by the token-file authenticator), CA and namespace", async () => {
    const prefix = join(dir, "pod");
    const sa = `${prefix}${SERVICE_ACCOUNT_ROOT}`;
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), "good");
    writeFileSync(join(sa, "ca.crt"), pki.ca.cert);
    writeFileSync(join(sa, "namespace"), "kube-system");
    const port = new URL(server.url).port;
    const env = { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port };
    const cfg = await inClusterConfig({ inClusterPathPrefix: prefix, env });
    expect(cfg.server).toBe(server.url);
    expect(cfg.namespace).toBe("kube-system");
    expect(cfg.authProvider).toBeDefined();
    const creds = await cfg.authProvider!();
    expect(creds.headers?.Authorization).toBe("Bearer good");
    expect(await listWith(cfg)).toMatchObject({ metadata: { resourceVersion: "77" } });
    // Without the service env, in-cluster loading says what is missing.
    await expect(inClusterConfig({ inClusterPathPrefix: prefix, env: {} })).rejects.toThrow(
      /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined/,
    );
    // Nothing leaked into process.env.
    expect(process.env.KUBERNETES_SERVICE_PORT === port && process.env.KUBERNETES_SERVICE_HOST === "127.0.0.1").toBe(
      false,
    );
  });

  it("unreadable certificate files and malformed YAML are ConfigErrors naming the problem", async () => {
    await expect(
      loadClientConfig({
        kubeconfigString: kubeconfig({
          cluster: { "certificate-authority-data": undefined, "certificate-authority": "/no/such/ca.crt" },
        }),
      }),
    ).rejects.toThrow(/cannot read certificate-authority "\/no\/such\/ca.crt"/);
    await expect(loadClientConfig({ kubeconfigString: "clusters: [\n" })).rejects.toBeInstanceOf(ConfigError);
  });
});
