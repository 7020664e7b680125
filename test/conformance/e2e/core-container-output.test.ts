// The e2e tests that read what a container printed (`pods/log`), re-implemented with @kubernetes/client-node against
// the simulator over HTTP with a cluster inside it, in real time as `pnpm apiserver --cluster` runs (the default
// stages 20 times faster): test/e2e/common/node/configmap.go and secrets.go (env consumption, through upstream's
// `e2eoutput.TestContainerOutput`: the pod runs to `Succeeded`, its log must contain each expected line) and
// test/e2e/auth/service_accounts.go (the token volume, TokenRequest and TokenReview). What a container prints comes
// from the simulator's container output model (docs/sim-cluster.md, "Container output").
import { silentLogger } from "@informer-ts/instrumentation";
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fasterStages } from "../../interop/kubectl-cluster-harness.js";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

const ROOT_CA = "-----BEGIN CERTIFICATE-----\nZTJlLWNvbnRhaW5lci1vdXRwdXQ=\n-----END CERTIFICATE-----\n";
const POLL = { timeout: 20_000, interval: 50 };
const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
const AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53";
const BUSYBOX = "registry.k8s.io/e2e-test-images/busybox:1.36.1-1";

let c: E2eCluster;
let auth: K8s.AuthenticationV1Api;

beforeAll(async () => {
  c = await startE2eCluster({
    cluster: {
      nodes: 2,
      stages: fasterStages(20),
      controllers: ["serviceaccount", "root-ca-cert-publisher"],
      rootCA: ROOT_CA,
      logger: silentLogger,
    },
  });
  auth = c.kc.makeApiClient(c.k8s.AuthenticationV1Api);
});

afterAll(async () => {
  await c.close();
});

/** A namespace whose `default` ServiceAccount exists (the e2e framework waits for it before a test runs). */
async function testNamespace(base: string): Promise<string> {
  const ns = await c.namespace(base);
  await expect
    .poll(
      async () =>
        c.core.readNamespacedServiceAccount({ namespace: ns, name: "default" }).then(
          () => true,
          (err: unknown) => (codeOf(err) === 404 ? false : Promise.reject(err)),
        ),
      POLL,
    )
    .toBe(true);
  return ns;
}

/** The phase of a pod once it stopped changing to one of `phases`. */
async function waitForPhase(ns: string, name: string, phases: readonly string[]): Promise<K8s.V1Pod> {
  let pod: K8s.V1Pod | undefined;
  await expect
    .poll(async () => {
      pod = await c.core.readNamespacedPod({ namespace: ns, name });
      return phases.includes(pod.status?.phase ?? "");
    }, POLL)
    .toBe(true);
  return pod!;
}

/**
 * upstream's `e2eoutput.TestContainerOutput`: creates the pod, waits for it to succeed, reads container
 * `containerIndex`'s log and checks that it contains each of `expected`.
 */
async function testContainerOutput(ns: string, pod: K8s.V1Pod, containerIndex: number, expected: readonly string[]) {
  await c.core.createNamespacedPod({ namespace: ns, body: pod });
  const name = pod.metadata!.name!;
  const got = await waitForPhase(ns, name, ["Succeeded", "Failed"]);
  expect(got.status?.phase).toBe("Succeeded");
  const log = await c.core.readNamespacedPodLog({
    namespace: ns,
    name,
    container: pod.spec!.containers[containerIndex]!.name,
  });
  for (const want of expected) expect(log).toContain(want);
}

const uid = () => Math.random().toString(16).slice(2, 10);

function envPod(name: string, container: Partial<K8s.V1Container>): K8s.V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: "Never",
      containers: [{ name: "env-test", image: BUSYBOX, command: ["sh", "-c", "env"], ...container }],
    },
  };
}

describe("[sig-node] ConfigMap (common/node/configmap.go)", () => {
  it("should be consumable via environment variable", async () => {
    const ns = await testNamespace("configmap");
    const name = `configmap-test-${uid()}`;
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name }, data: { "data-1": "value-1" } },
    });
    await testContainerOutput(
      ns,
      envPod(`pod-configmaps-${uid()}`, {
        env: [{ name: "CONFIG_DATA_1", valueFrom: { configMapKeyRef: { name, key: "data-1" } } }],
      }),
      0,
      ["CONFIG_DATA_1=value-1"],
    );
  });

  it("should be consumable via the environment", async () => {
    const ns = await testNamespace("configmap");
    const name = `configmap-test-${uid()}`;
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name }, data: { "data-1": "value-1", "data-2": "value-2", "data-3": "value-3" } },
    });
    await testContainerOutput(
      ns,
      envPod(`pod-configmaps-${uid()}`, {
        envFrom: [{ configMapRef: { name } }, { prefix: "p-", configMapRef: { name } }],
      }),
      0,
      [
        "data-1=value-1",
        "data-2=value-2",
        "data-3=value-3",
        "p-data-1=value-1",
        "p-data-2=value-2",
        "p-data-3=value-3",
      ],
    );
  });
});

describe("[sig-node] Secrets (common/node/secrets.go)", () => {
  const secretData = {
    "data-1": Buffer.from("value-1\n").toString("base64"),
    "data-2": Buffer.from("value-2\n").toString("base64"),
    "data-3": Buffer.from("value-3\n").toString("base64"),
  };

  it("should be consumable from pods in env vars", async () => {
    const ns = await testNamespace("secrets");
    const name = `secret-test-${uid()}`;
    await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, data: secretData } });
    await testContainerOutput(
      ns,
      envPod(`pod-secrets-${uid()}`, {
        name: "secret-env-test",
        env: [{ name: "SECRET_DATA", valueFrom: { secretKeyRef: { name, key: "data-1" } } }],
      }),
      0,
      ["SECRET_DATA=value-1"],
    );
  });

  it("should be consumable via the environment", async () => {
    const ns = await testNamespace("secrets");
    const name = `secret-test-${uid()}`;
    await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, data: secretData } });
    await testContainerOutput(
      ns,
      envPod(`pod-configmaps-${uid()}`, {
        envFrom: [{ secretRef: { name } }, { prefix: "p-", secretRef: { name } }],
      }),
      0,
      [
        "data-1=value-1",
        "data-2=value-2",
        "data-3=value-3",
        "p-data-1=value-1",
        "p-data-2=value-2",
        "p-data-3=value-3",
      ],
    );
  });
});

describe("[sig-auth] ServiceAccounts, with containers (auth/service_accounts.go)", () => {
  it("should mount an API token into pods", async () => {
    const ns = await testNamespace("svcaccounts");
    const sa = await c.core.createNamespacedServiceAccount({
      namespace: ns,
      body: { metadata: { name: "mount-test" } },
    });
    // Upstream runs `sleep` and reads the three files with `kubectl exec cat`; the simulator has no exec, so each
    // container cats one file and its log is read instead.
    const files = ["token", "ca.crt", "namespace"] as const;
    const podName = `pod-service-account-${uid()}`;
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: podName },
        spec: {
          serviceAccountName: sa.metadata!.name!,
          terminationGracePeriodSeconds: 0,
          restartPolicy: "Never",
          containers: files.map((f) => ({
            name: `test-${f.replace(".", "-")}`,
            image: BUSYBOX,
            command: ["cat", `${SA_DIR}/${f}`],
          })),
        },
      },
    });
    const pod = await waitForPhase(ns, podName, ["Running", "Succeeded"]);
    const node = await c.core.readNode({ name: pod.spec!.nodeName! });
    const read = async (f: (typeof files)[number]) =>
      (
        await c.core.readNamespacedPodLog({ namespace: ns, name: podName, container: `test-${f.replace(".", "-")}` })
      ).replace(/\n$/, "");
    const [mountedToken, mountedCA, mountedNamespace] = await Promise.all(files.map(read));

    // CA and namespace should be identical.
    const rootCA = await c.core.readNamespacedConfigMap({ namespace: ns, name: "kube-root-ca.crt" });
    expect(mountedCA).toBe(rootCA.data?.["ca.crt"]?.replace(/\n$/, ""));
    expect(mountedNamespace).toBe(ns);
    // The token is a valid credential that identifies the pod's service account.
    const review = await auth.createTokenReview({ body: { spec: { token: mountedToken! } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.error ?? "").toBe("");
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${ns}:${sa.metadata!.name}`);
    const groups = new Set(review.status?.user?.groups);
    for (const g of ["system:authenticated", "system:serviceaccounts", `system:serviceaccounts:${ns}`])
      expect(groups.has(g)).toBe(true);
    const extra = review.status?.user?.extra ?? {};
    expect(extra["authentication.kubernetes.io/credential-id"]).toHaveLength(1);
    expect(extra["authentication.kubernetes.io/credential-id"]?.[0]).toMatch(/^JTI=/);
    expect(extra["authentication.kubernetes.io/pod-name"]).toEqual([podName]);
    expect(extra["authentication.kubernetes.io/pod-uid"]).toEqual([pod.metadata!.uid]);
    expect(extra["authentication.kubernetes.io/node-name"]).toEqual([node.metadata!.name]);
    expect(extra["authentication.kubernetes.io/node-uid"]).toEqual([node.metadata!.uid]);
  });

  it("should allow opting out of API token automount", async () => {
    const ns = await testNamespace("svcaccounts");
    await c.core.createNamespacedServiceAccount({
      namespace: ns,
      body: { metadata: { name: "mount" }, automountServiceAccountToken: true },
    });
    await c.core.createNamespacedServiceAccount({
      namespace: ns,
      body: { metadata: { name: "nomount" }, automountServiceAccountToken: false },
    });
    const cases: [string, string, boolean | undefined, boolean][] = [
      ["pod-service-account-defaultsa", "default", undefined, true],
      ["pod-service-account-mountsa", "mount", undefined, true],
      ["pod-service-account-nomountsa", "nomount", undefined, false],
      ["pod-service-account-defaultsa-mountspec", "default", true, true],
      ["pod-service-account-mountsa-mountspec", "mount", true, true],
      ["pod-service-account-nomountsa-mountspec", "nomount", true, true],
      ["pod-service-account-defaultsa-nomountspec", "default", false, false],
      ["pod-service-account-mountsa-nomountspec", "mount", false, false],
      ["pod-service-account-nomountsa-nomountspec", "nomount", false, false],
    ];
    for (const [podName, serviceAccountName, automount, expectVolume] of cases) {
      const created = await c.core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: podName },
          spec: {
            containers: [{ name: "token-test", image: AGNHOST }],
            restartPolicy: "Never",
            serviceAccountName,
            ...(automount !== undefined && { automountServiceAccountToken: automount }),
          },
        },
      });
      const has = (created.spec?.containers ?? []).some((ct) =>
        (ct.volumeMounts ?? []).some((m) => m.mountPath === SA_DIR),
      );
      expect({ podName, has }).toEqual({ podName, has: expectVolume });
    }
  });

  it("should mount projected service account token", async () => {
    const ns = await testNamespace("svcaccounts");
    const tokenPath = "/test-volume/token";
    await testContainerOutput(
      ns,
      {
        metadata: { name: `test-pod-${uid()}` },
        spec: {
          restartPolicy: "Never",
          volumes: [
            {
              name: "test-volume",
              projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] },
            },
          ],
          containers: [
            {
              name: "agnhost-container",
              image: AGNHOST,
              args: ["mounttest", `--file_content=${tokenPath}`],
              volumeMounts: [{ name: "test-volume", mountPath: "/test-volume", readOnly: true }],
            },
          ],
        },
      },
      0,
      [`content of file "${tokenPath}": `],
    );
    const log = await c.core.readNamespacedPodLog({
      namespace: ns,
      name: (await c.core.listNamespacedPod({ namespace: ns })).items[0]!.metadata!.name!,
    });
    // upstream's TestContainerOutputRegexp pattern for the token.
    expect(log).toMatch(
      /content of file "\/test-volume\/token": [A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*/,
    );
  });

  it("should create a serviceAccountToken and ensure a successful TokenReview", async () => {
    const ns = await testNamespace("svcaccounts");
    const saName = "e2e-sa-" + uid();
    await c.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: saName } } });
    const tr = await c.core.createNamespacedServiceAccountToken({
      namespace: ns,
      name: saName,
      body: { spec: { audiences: [] } },
    });
    expect(tr.status?.token).toBeTruthy();
    const review = await auth.createTokenReview({ body: { spec: { token: tr.status!.token } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${ns}:${saName}`);
  });
});
