// apimachinery/webhook.go — the admission webhook conformance tests re-implemented with @kubernetes/client-node
// against the simulator over HTTP. The webhook "pod" is an in-process HTTPS server (`webhook-server.ts`, agnhost's
// `webhook` stand-in) published as the Service `e2e-test-webhook` through an EndpointSlice, with a serving
// certificate from node-forge for `e2e-test-webhook.<namespace>.svc`; the configurations carry its CA bundle. The
// simulator runs 10 times as fast as the wall clock, so the webhooks' timeouts and the server's delays shrink alike.
import type * as K8s from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generatePki } from "../../../packages/sim-apiserver/src/http/tls.js";
import { createDefinition } from "./crd-fixture.js";
import { codeOf, type E2eCluster, pollFor, startE2eCluster } from "./harness.js";
import { startWebhookServer, type WebhookServer } from "./webhook-server.js";

const SERVICE = "e2e-test-webhook";
const SERVICE_PORT = 8443;
const SKIP_LABEL = "skip-webhook-admission";

let c: E2eCluster;
let admission: K8s.AdmissionregistrationV1Api;
let server: WebhookServer;
let serviceNs: string;
let caBundle: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  c = await startE2eCluster({ clockRate: 10 });
  admission = c.kc.makeApiClient(c.k8s.AdmissionregistrationV1Api);
  serviceNs = await c.namespace("webhook-server");
  const pki = generatePki({ dnsNames: [`${SERVICE}.${serviceNs}.svc`] });
  caBundle = Buffer.from(pki.ca.cert).toString("base64");
  server = await startWebhookServer(pki.serving.cert, pki.serving.key, c.engine.clock);
  // `deployWebhookAndService`: the Service, and the endpoint a running webhook pod would give it.
  await c.core.createNamespacedService({
    namespace: serviceNs,
    body: {
      metadata: { name: SERVICE, labels: { test: "webhook" } },
      spec: { selector: { webhook: "true" }, ports: [{ protocol: "TCP", port: SERVICE_PORT, targetPort: 8444 }] },
    },
  });
  const slice = await c.raw("POST", `/apis/discovery.k8s.io/v1/namespaces/${serviceNs}/endpointslices`, {
    metadata: { name: `${SERVICE}-abcde`, labels: { "kubernetes.io/service-name": SERVICE } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
    ports: [{ port: server.port, protocol: "TCP" }],
  });
  expect(slice.status).toBe(201);
}, 60_000);
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});
afterAll(async () => {
  await server?.close();
  await c?.close();
});

/** The framework's namespace for one test, labelled `<unique>: "true"`, and its markers namespace. */
interface Framework {
  readonly ns: string;
  readonly unique: string;
  readonly markers: string;
}

async function framework(): Promise<Framework> {
  const ns = await c.namespace("webhook");
  await labelNamespace(ns, { [ns]: "true" });
  const markers = await c.namespace("webhook-markers");
  await labelNamespace(markers, { [`${ns}-markers`]: "true" });
  return { ns, unique: ns, markers };
}

async function labelNamespace(ns: string, labels: Record<string, string>): Promise<void> {
  const res = await c.raw(
    "PATCH",
    `/api/v1/namespaces/${ns}`,
    { metadata: { labels } },
    {
      "content-type": "application/strategic-merge-patch+json",
    },
  );
  expect(res.status).toBe(200);
}

/** `f.CreateNamespace(base, labels)`. */
async function namespaceWith(base: string, labels: Record<string, string>): Promise<string> {
  const ns = await c.namespace(base);
  await labelNamespace(ns, labels);
  return ns;
}

/** The text of a client error: its message and the Status body. */
function errorText(err: unknown): string {
  const e = err as { message?: unknown; body?: unknown };
  return `${String(e.message ?? err)} ${typeof e.body === "string" ? e.body : JSON.stringify(e.body ?? "")}`;
}

/** Awaits `p`, expecting it to fail; returns the error. */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the request to fail");
}

type Hook = K8s.V1ValidatingWebhook & K8s.V1MutatingWebhook;

function service(path: string, ca = true): K8s.AdmissionregistrationV1WebhookClientConfig {
  return {
    service: { namespace: serviceNs, name: SERVICE, path, port: SERVICE_PORT },
    ...(ca && { caBundle }),
  };
}

function rule(operations: string[], groups: string[], versions: string[], resources: string[]) {
  return [{ operations, apiGroups: groups, apiVersions: versions, resources }];
}

function hook(f: Framework, name: string, path: string, extra: Partial<Hook> = {}): Hook {
  return {
    name,
    rules: rule(["CREATE"], [""], ["v1"], ["configmaps"]),
    clientConfig: service(path),
    sideEffects: "None",
    admissionReviewVersions: ["v1", "v1beta1"],
    namespaceSelector: { matchLabels: { [f.unique]: "true" } },
    ...extra,
  };
}

const denyPod = (f: Framework) =>
  hook(f, "deny-unwanted-pod-container-name-and-label.k8s.io", "/pods", {
    rules: rule(["CREATE"], [""], ["v1"], ["pods"]),
  });
const denyConfigMap = (f: Framework) =>
  hook(f, "deny-unwanted-configmap-data.k8s.io", "/configmaps", {
    rules: rule(["CREATE", "UPDATE", "DELETE"], [""], ["v1"], ["configmaps"]),
    namespaceSelector: {
      matchLabels: { [f.unique]: "true" },
      matchExpressions: [{ key: SKIP_LABEL, operator: "NotIn", values: ["yes"] }],
    },
  });
const mutateConfigMap = (f: Framework, stage: number) =>
  hook(f, `adding-configmap-data-stage-${stage}.k8s.io`, "/mutating-configmaps");
/** `newValidatingIsReadyWebhookFixture` / the mutating one: always-deny, scoped to the markers namespace. */
const isReady = (f: Framework, kind: "validating" | "mutating") =>
  hook(f, `${kind}-is-webhook-configuration-ready.k8s.io`, "/always-deny", {
    failurePolicy: "Ignore",
    namespaceSelector: { matchLabels: { [`${f.unique}-markers`]: "true" } },
    objectSelector: { matchLabels: { [f.unique]: "true" } },
  });
/** `failingWebhook`: no CA bundle, so the call always fails TLS verification. */
const failing = (f: Framework, name: string, extra: Partial<Hook>) =>
  hook(f, name, "/configmaps", { clientConfig: service("/configmaps", false), ...extra });

async function createValidating(
  f: Framework,
  name: string,
  webhooks: Hook[],
  labels?: Record<string, string>,
): Promise<K8s.V1ValidatingWebhookConfiguration> {
  const created = await admission.createValidatingWebhookConfiguration({
    body: { metadata: { name, ...(labels && { labels }) }, webhooks },
  });
  cleanups.push(() => admission.deleteValidatingWebhookConfiguration({ name }));
  await waitReady(f);
  return created;
}

async function createMutating(
  f: Framework,
  name: string,
  webhooks: Hook[],
  labels?: Record<string, string>,
): Promise<K8s.V1MutatingWebhookConfiguration> {
  const created = await admission.createMutatingWebhookConfiguration({
    body: { metadata: { name, ...(labels && { labels }) }, webhooks },
  });
  cleanups.push(() => admission.deleteMutatingWebhookConfiguration({ name }));
  await waitReady(f);
  return created;
}

let markerCount = 0;

/** `waitWebhookConfigurationReady`: marker configmaps until the always-deny is-ready webhook denies one. */
async function waitReady(f: Framework): Promise<void> {
  await pollFor(
    async () => {
      const name = `marker-${++markerCount}`;
      try {
        await c.core.createNamespacedConfigMap({
          namespace: f.markers,
          body: { metadata: { name, labels: { [f.unique]: "true" } } },
        });
      } catch (err) {
        if (errorText(err).includes("denied")) return true;
        throw err;
      }
      await c.core.deleteNamespacedConfigMap({ namespace: f.markers, name }).catch(() => undefined);
      return undefined;
    },
    { timeoutMs: 30_000 },
  );
}

let cmCount = 0;
const nonCompliant = (name = `cm-${++cmCount}`): K8s.V1ConfigMap => ({
  metadata: { name },
  data: { "webhook-e2e-test": "webhook-disallow" },
});
const toBeMutated = (name = `cm-${++cmCount}`): K8s.V1ConfigMap => ({
  metadata: { name },
  data: { "mutation-start": "yes" },
});

/** Whether creating a non-compliant configmap is denied now (an admitted one is deleted again). */
async function nonCompliantDenied(f: Framework): Promise<boolean> {
  const cm = nonCompliant();
  try {
    await c.core.createNamespacedConfigMap({ namespace: f.ns, body: cm });
  } catch (err) {
    if (errorText(err).includes("denied")) return true;
    throw err;
  }
  await c.core.deleteNamespacedConfigMap({ namespace: f.ns, name: cm.metadata!.name! });
  return false;
}

/** Whether a configmap created now gets `mutation-stage-1` (deleted again). */
async function createdMutated(f: Framework): Promise<boolean> {
  const cm = toBeMutated();
  const created = await c.core.createNamespacedConfigMap({ namespace: f.ns, body: cm });
  await c.core.deleteNamespacedConfigMap({ namespace: f.ns, name: cm.metadata!.name! });
  return created.data?.["mutation-stage-1"] !== undefined;
}

describe("AdmissionWebhook [Privileged:ClusterAdmin]", () => {
  it("should be able to deny pod and configmap creation", async () => {
    const f = await framework();
    await createValidating(f, f.unique, [
      denyPod(f),
      denyConfigMap(f),
      failing(f, "fail-open.k8s.io", { failurePolicy: "Ignore" }),
      isReady(f, "validating"),
    ]);
    // testWebhook
    const pod = (name: string, container: string, label: string): K8s.V1Pod => ({
      metadata: { name, labels: { "webhook-e2e-test": label } },
      spec: { containers: [{ name: container, image: "registry.k8s.io/pause:3.10" }] },
    });
    let err = await failure(
      c.core.createNamespacedPod({
        namespace: f.ns,
        body: pod("disallowed-pod", "webhook-disallow", "webhook-disallow"),
      }),
    );
    expect(errorText(err)).toContain("the pod contains unwanted container name");
    expect(errorText(err)).toContain("the pod contains unwanted label");

    err = await failure(
      c.core.createNamespacedPod({ namespace: f.ns, body: pod("hanging-pod", "wait-forever", "wait-forever") }),
    );
    expect(errorText(err)).toContain("webhook");
    expect(errorText(err)).toContain("deadline");
    expect(codeOf(await failure(c.core.readNamespacedPod({ namespace: f.ns, name: "hanging-pod" })))).toBe(404);

    err = await failure(
      c.core.createNamespacedConfigMap({ namespace: f.ns, body: nonCompliant("disallowed-configmap") }),
    );
    const expected = "the configmap contains unwanted key and value";
    expect(errorText(err)).toContain(expected);

    await c.core.createNamespacedConfigMap({
      namespace: f.ns,
      body: { metadata: { name: "allowed-configmap" }, data: { admit: "this" } },
    });
    const cm = await c.core.readNamespacedConfigMap({ namespace: f.ns, name: "allowed-configmap" });
    cm.data = { ...cm.data, "webhook-e2e-test": "webhook-disallow" };
    err = await failure(c.core.replaceNamespacedConfigMap({ namespace: f.ns, name: "allowed-configmap", body: cm }));
    expect(errorText(err)).toContain(expected);
    err = await failure(
      c.core.patchNamespacedConfigMap(
        { namespace: f.ns, name: "allowed-configmap", body: { data: { "webhook-e2e-test": "webhook-disallow" } } },
        c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(errorText(err)).toContain(expected);
    const stored = await c.core.readNamespacedConfigMap({ namespace: f.ns, name: "allowed-configmap" });
    expect(stored.data).toEqual({ admit: "this" });

    const skip = await namespaceWith("exempted-namespace", { [SKIP_LABEL]: "yes", [f.unique]: "true" });
    await c.core.createNamespacedConfigMap({ namespace: skip, body: nonCompliant("disallowed-configmap") });
  });

  it("should unconditionally reject operations on fail closed webhook", async () => {
    const f = await framework();
    await createValidating(f, f.unique, [
      failing(f, "fail-closed.k8s.io", {
        failurePolicy: "Fail",
        namespaceSelector: {
          matchLabels: { [f.unique]: "true" },
          matchExpressions: [{ key: "fail-closed-webhook", operator: "In", values: ["yes"] }],
        },
      }),
      isReady(f, "validating"),
    ]);
    const failNs = await namespaceWith("fail-closed-namespace", { "fail-closed-webhook": "yes", [f.unique]: "true" });
    const err = await failure(
      c.core.createNamespacedConfigMap({ namespace: failNs, body: { metadata: { name: "foo" } } }),
    );
    expect(codeOf(err)).toBe(500);
    const status = JSON.parse((err as { body: string }).body) as K8s.V1Status;
    expect(status.reason).toBe("InternalError");
    expect(status.message).toContain('failed calling webhook "fail-closed.k8s.io"');
    expect(status.message).toContain("certificate signed by unknown authority");
  });

  it("should mutate configmap", async () => {
    const f = await framework();
    await createMutating(f, f.unique, [mutateConfigMap(f, 1), mutateConfigMap(f, 2), isReady(f, "mutating")]);
    const created = await c.core.createNamespacedConfigMap({ namespace: f.ns, body: toBeMutated("to-be-mutated") });
    expect(created.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes" });
    const stored = await c.core.readNamespacedConfigMap({ namespace: f.ns, name: "to-be-mutated" });
    expect(stored.data).toEqual(created.data);
  });

  it("should mutate pod and apply defaults after mutation", async () => {
    const f = await framework();
    await createMutating(f, f.unique, [
      hook(f, "adding-init-container.k8s.io", "/mutating-pods", { rules: rule(["CREATE"], [""], ["v1"], ["pods"]) }),
      isReady(f, "mutating"),
    ]);
    const pod = await c.core.createNamespacedPod({
      namespace: f.ns,
      body: {
        metadata: { name: "webhook-to-be-mutated" },
        spec: { containers: [{ name: "example", image: "registry.k8s.io/pause:3.10" }] },
      },
    });
    expect(pod.spec?.initContainers).toHaveLength(1);
    expect(pod.spec?.initContainers?.[0]?.name).toBe("webhook-added-init-container");
    expect(pod.spec?.initContainers?.[0]?.terminationMessagePolicy).toBe("File");
  });

  it("should not be able to mutate or prevent deletion of webhook configuration objects", async () => {
    const f = await framework();
    const configResources = ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"];
    await createValidating(f, `${f.unique}blocking`, [
      hook(f, "deny-webhook-configuration-deletions.k8s.io", "/always-deny", {
        rules: rule(["DELETE"], ["admissionregistration.k8s.io"], ["*"], configResources),
        failurePolicy: "Fail",
      }),
      isReady(f, "validating"),
    ]);
    await createMutating(f, `${f.unique}blocking`, [
      hook(f, "add-label-to-webhook-configurations.k8s.io", "/add-label", {
        rules: rule(["CREATE"], ["admissionregistration.k8s.io"], ["*"], configResources),
        failurePolicy: "Fail",
      }),
      isReady(f, "mutating"),
    ]);
    const dummy = (name: string) =>
      hook(f, name, "", {
        rules: rule(["CREATE"], [""], ["v1"], ["invalid"]),
        clientConfig: service("", false),
        failurePolicy: "Ignore",
      });
    const v = await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: f.unique },
        webhooks: [dummy("dummy-validating-webhook.k8s.io"), isReady(f, "validating")],
      },
    });
    expect(v.metadata?.labels?.["added-label"]).toBeUndefined();
    await waitReady(f);
    await admission.deleteValidatingWebhookConfiguration({ name: f.unique });
    const m = await admission.createMutatingWebhookConfiguration({
      body: {
        metadata: { name: f.unique },
        webhooks: [dummy("dummy-mutating-webhook.k8s.io"), isReady(f, "mutating")],
      },
    });
    expect(m.metadata?.labels?.["added-label"]).toBeUndefined();
    await waitReady(f);
    await admission.deleteMutatingWebhookConfiguration({ name: f.unique });
  });

  it("should honor timeout", async () => {
    const f = await framework();
    const slow = async (failurePolicy: string, timeoutSeconds: number | undefined) => {
      const name = `${f.unique}-slow`;
      await createValidating(f, name, [
        hook(f, "allow-configmap-with-delay-webhook.k8s.io", "/always-allow-delay-5s", {
          failurePolicy,
          ...(timeoutSeconds !== undefined && { timeoutSeconds }),
        }),
        isReady(f, "validating"),
      ]);
      return async () => {
        await admission.deleteValidatingWebhookConfiguration({ name });
        cleanups.pop();
      };
    };
    const cm = { metadata: { name: "e2e-test-slow-webhook-configmap" } };
    const noError = async () => {
      await c.core.createNamespacedConfigMap({ namespace: f.ns, body: cm });
      await c.core.deleteNamespacedConfigMap({ namespace: f.ns, name: cm.metadata.name });
    };
    // Setting timeout (1s) shorter than webhook latency (5s)
    let cleanup = await slow("Fail", 1);
    const err = errorText(await failure(c.core.createNamespacedConfigMap({ namespace: f.ns, body: cm })));
    expect(err.includes("context deadline exceeded") || err.includes("timeout")).toBe(true);
    expect(err).toContain("/always-allow-delay-5s?timeout=1s");
    await cleanup();
    // Having no error when timeout is shorter than webhook latency and failure policy is ignore
    cleanup = await slow("Ignore", 1);
    await noError();
    await cleanup();
    // Having no error when timeout is longer than webhook latency
    cleanup = await slow("Fail", 10);
    await noError();
    await cleanup();
    // Having no error when timeout is empty (defaulted to 10s in v1)
    cleanup = await slow("Fail", undefined);
    await noError();
    await cleanup();
  }, 30_000);

  it("patching/updating a validating webhook should work", async () => {
    const f = await framework();
    await createValidating(f, f.unique, [denyConfigMap(f), isReady(f, "validating")]);
    expect(await nonCompliantDenied(f)).toBe(true);
    const h = await admission.readValidatingWebhookConfiguration({ name: f.unique });
    h.webhooks![0]!.rules![0]!.operations = ["UPDATE"];
    await admission.replaceValidatingWebhookConfiguration({ name: f.unique, body: h });
    expect(await nonCompliantDenied(f)).toBe(false);
    await admission.patchValidatingWebhookConfiguration(
      { name: f.unique, body: [{ op: "replace", path: "/webhooks/0/rules/0/operations", value: ["CREATE"] }] },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.JsonPatch),
    );
    expect(await nonCompliantDenied(f)).toBe(true);
  });

  it("patching/updating a mutating webhook should work", async () => {
    const f = await framework();
    await createMutating(f, f.unique, [mutateConfigMap(f, 1), isReady(f, "mutating")]);
    const h = await admission.readMutatingWebhookConfiguration({ name: f.unique });
    h.webhooks![0]!.rules![0]!.operations = ["UPDATE"];
    await admission.replaceMutatingWebhookConfiguration({ name: f.unique, body: h });
    expect(await createdMutated(f)).toBe(false);
    await admission.patchMutatingWebhookConfiguration(
      { name: f.unique, body: [{ op: "replace", path: "/webhooks/0/rules/0/operations", value: ["CREATE"] }] },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.JsonPatch),
    );
    expect(await createdMutated(f)).toBe(true);
  });

  it("listing validating webhooks should work", async () => {
    const f = await framework();
    const uuid = `list-${f.unique}`;
    for (let i = 0; i < 10; i++)
      await admission.createValidatingWebhookConfiguration({
        body: {
          metadata: { name: `${f.unique}-${i}`, labels: { "e2e-list-test-uuid": uuid } },
          webhooks: [denyConfigMap(f), isReady(f, "validating")],
        },
      });
    const labelSelector = `e2e-list-test-uuid=${uuid}`;
    cleanups.push(() => admission.deleteCollectionValidatingWebhookConfiguration({ labelSelector }));
    const list = await admission.listValidatingWebhookConfiguration({ labelSelector });
    expect(list.items).toHaveLength(10);
    await waitReady(f);
    expect(await nonCompliantDenied(f)).toBe(true);
    await admission.deleteCollectionValidatingWebhookConfiguration({ labelSelector });
    expect(await nonCompliantDenied(f)).toBe(false);
  });

  it("listing mutating webhooks should work", async () => {
    const f = await framework();
    const uuid = `list-${f.unique}`;
    for (let i = 0; i < 10; i++)
      await admission.createMutatingWebhookConfiguration({
        body: {
          metadata: { name: `${f.unique}-${i}`, labels: { "e2e-list-test-uuid": uuid } },
          webhooks: [mutateConfigMap(f, 1), isReady(f, "mutating")],
        },
      });
    const labelSelector = `e2e-list-test-uuid=${uuid}`;
    cleanups.push(() => admission.deleteCollectionMutatingWebhookConfiguration({ labelSelector }));
    const list = await admission.listMutatingWebhookConfiguration({ labelSelector });
    expect(list.items).toHaveLength(10);
    await waitReady(f);
    expect(await createdMutated(f)).toBe(true);
    await admission.deleteCollectionMutatingWebhookConfiguration({ labelSelector });
    expect(await createdMutated(f)).toBe(false);
  });

  const initial = [{ name: "expression-1", expression: "object.metadata.namespace == 'production'" }];
  const updated = [...initial, { name: "expression-2", expression: "object.metadata.namespace == 'staging'" }];
  const withConditions = (f: Framework, kind: "validating" | "mutating", matchConditions: K8s.V1MatchCondition[]) =>
    kind === "validating"
      ? [
          hook(f, "validation-webhook-with-match-conditions.k8s.io", "/always-deny", {
            matchPolicy: "Equivalent",
            matchConditions,
          }),
          isReady(f, "validating"),
        ]
      : [hook(f, "adding-configmap-data.k8s.io", "/mutating-configmaps", { matchConditions }), isReady(f, "mutating")];

  it("should be able to create and update validating webhook configurations with match conditions", async () => {
    const f = await framework();
    await createValidating(f, f.unique, withConditions(f, "validating", initial));
    let got = await admission.readValidatingWebhookConfiguration({ name: f.unique });
    expect(got.webhooks?.[0]?.matchConditions).toEqual(initial);
    got.webhooks![0]!.matchConditions = updated;
    await admission.replaceValidatingWebhookConfiguration({ name: f.unique, body: got });
    got = await admission.readValidatingWebhookConfiguration({ name: f.unique });
    expect(got.webhooks?.[0]?.matchConditions).toEqual(updated);
  });

  it("should be able to create and update mutating webhook configurations with match conditions", async () => {
    const f = await framework();
    await createMutating(f, f.unique, withConditions(f, "mutating", initial));
    let got = await admission.readMutatingWebhookConfiguration({ name: f.unique });
    expect(got.webhooks?.[0]?.matchConditions).toEqual(initial);
    got.webhooks![0]!.matchConditions = updated;
    await admission.replaceMutatingWebhookConfiguration({ name: f.unique, body: got });
    got = await admission.readMutatingWebhookConfiguration({ name: f.unique });
    expect(got.webhooks?.[0]?.matchConditions).toEqual(updated);
  });

  const invalid = [{ name: "invalid-expression-1", expression: "... [] bad expression" }];

  it("should reject validating webhook configurations with invalid match conditions", async () => {
    const f = await framework();
    const err = await failure(
      admission.createValidatingWebhookConfiguration({
        body: { metadata: { name: f.unique }, webhooks: withConditions(f, "validating", invalid) },
      }),
    );
    expect(codeOf(err)).toBe(422);
    expect(errorText(err)).toContain("compilation failed");
  });

  it("should reject mutating webhook configurations with invalid match conditions", async () => {
    const f = await framework();
    const err = await failure(
      admission.createMutatingWebhookConfiguration({
        body: { metadata: { name: f.unique }, webhooks: withConditions(f, "mutating", invalid) },
      }),
    );
    expect(codeOf(err)).toBe(422);
    expect(errorText(err)).toContain("compilation failed");
  });

  it("should mutate everything except 'skip-me' configmaps", async () => {
    const f = await framework();
    await createMutating(f, f.unique, [
      {
        ...mutateConfigMap(f, 1),
        matchConditions: [{ name: "skip-me", expression: "object.metadata.name != 'skip-me'" }],
      },
      isReady(f, "mutating"),
    ]);
    const mutated = await c.core.createNamespacedConfigMap({ namespace: f.ns, body: toBeMutated() });
    expect(mutated.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes" });
    const skipped = await c.core.createNamespacedConfigMap({ namespace: f.ns, body: toBeMutated("skip-me") });
    expect(skipped.data).toEqual({ "mutation-start": "yes" });
  });

  it("should deny crd creation", async () => {
    const f = await framework();
    await createValidating(f, f.unique, [
      hook(f, "deny-crd-with-unwanted-label.k8s.io", "/crd", {
        rules: rule(["CREATE"], ["apiextensions.k8s.io"], ["*"], ["customresourcedefinitions"]),
        namespaceSelector: undefined,
        objectSelector: { matchLabels: { [f.unique]: "true" } },
      }),
      isReady(f, "validating"),
    ]);
    const name = "e2e-test-webhook-deny-crd";
    const res = await c.raw("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: {
        name: `${name}s.webhook.example.com`,
        labels: { [f.unique]: "true", "webhook-e2e-test": "webhook-disallow" },
      },
      spec: {
        group: "webhook.example.com",
        scope: "Namespaced",
        names: {
          singular: name,
          kind: "E2e-test-webhook-deny-crd",
          listKind: "E2e-test-webhook-deny-crdList",
          plural: `${name}s`,
        },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("the crd contains unwanted label");
    const gone = await c.raw(
      "GET",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}s.webhook.example.com`,
    );
    expect(gone.status).toBe(404);
  });

  /** `crd.CreateTestCRD` / `createAdmissionWebhookMultiVersionTestCRDWithV1Storage`: a v1 (+ v2) definition. */
  let crdCount = 0;
  async function testCrd(versions: { name: string; storage: boolean; schema?: unknown }[]) {
    const n = ++crdCount;
    const plural = `e2e-test-webhook-${n}-crds`;
    const group = "webhook-crd-test.example.com";
    const kind = `E2eTestWebhook${n}Crd`;
    const preserve = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    await createDefinition(c, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural, singular: `e2e-test-webhook-${n}-crd`, kind, listKind: `${kind}List` },
        versions: versions.map((v) => ({
          name: v.name,
          served: true,
          storage: v.storage,
          schema: v.schema ?? preserve,
        })),
      },
    } as K8s.KubernetesObject);
    cleanups.push(() => c.raw("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`));
    return { plural, group, kind, versions: versions.map((v) => v.name), name: `${plural}.${group}` };
  }
  type TestCrd = Awaited<ReturnType<typeof testCrd>>;
  const crPath = (t: TestCrd, ns: string, version: string, name = "") =>
    `/apis/${t.group}/${version}/namespaces/${ns}/${t.plural}${name === "" ? "" : `/${name}`}`;
  const cr = (t: TestCrd, name: string, data: Record<string, string>) => ({
    apiVersion: `${t.group}/${t.versions[0]}`,
    kind: t.kind,
    metadata: { name },
    data,
  });
  const mutateCr = (f: Framework, t: TestCrd) => [
    hook(f, "mutate-custom-resource-data-stage-1.k8s.io", "/mutating-custom-resource", {
      rules: rule(["CREATE", "UPDATE"], [t.group], t.versions, [t.plural]),
    }),
    hook(f, "mutate-custom-resource-data-stage-2.k8s.io", "/mutating-custom-resource", {
      rules: rule(["CREATE"], [t.group], t.versions, [t.plural]),
    }),
    isReady(f, "mutating"),
  ];

  it("should be able to deny custom resource creation, update and deletion", async () => {
    const f = await framework();
    const t = await testCrd([{ name: "v1", storage: true }]);
    await createValidating(f, f.unique, [
      hook(f, "deny-unwanted-custom-resource-data.k8s.io", "/custom-resource", {
        rules: rule(["CREATE", "UPDATE", "DELETE"], [t.group], t.versions, [t.plural]),
      }),
      isReady(f, "validating"),
    ]);
    let res = await c.raw(
      "POST",
      crPath(t, f.ns, "v1"),
      cr(t, "cr-instance-1", { "webhook-e2e-test": "webhook-disallow" }),
    );
    expect(res.status).toBe(400);
    expect(res.text).toContain("the custom resource contains unwanted data");
    res = await c.raw(
      "POST",
      crPath(t, f.ns, "v1"),
      cr(t, "cr-instance-2", { "webhook-e2e-test": "webhook-nondeletable" }),
    );
    expect(res.status).toBe(201);
    const update = async (value: string) => {
      const got = (await c.raw("GET", crPath(t, f.ns, "v1", "cr-instance-2"))).json as { data: Record<string, string> };
      got.data["webhook-e2e-test"] = value;
      return c.raw("PUT", crPath(t, f.ns, "v1", "cr-instance-2"), got);
    };
    res = await update("webhook-disallow");
    expect(res.status).toBe(400);
    expect(res.text).toContain("the custom resource contains unwanted data");
    res = await c.raw("DELETE", crPath(t, f.ns, "v1", "cr-instance-2"));
    expect(res.status).toBe(400);
    expect(res.text).toContain("the custom resource cannot be deleted because it contains unwanted key and value");
    res = await update("webhook-allow");
    expect(res.status).toBe(200);
    res = await c.raw("DELETE", crPath(t, f.ns, "v1", "cr-instance-2"));
    expect(res.status).toBe(200);
  });

  it("should mutate custom resource", async () => {
    const f = await framework();
    const t = await testCrd([{ name: "v1", storage: true }]);
    await createMutating(f, f.unique, mutateCr(f, t));
    const res = await c.raw("POST", crPath(t, f.ns, "v1"), cr(t, "cr-instance-1", { "mutation-start": "yes" }));
    expect(res.status).toBe(201);
    expect((res.json as { data: unknown }).data).toEqual({
      "mutation-start": "yes",
      "mutation-stage-1": "yes",
      "mutation-stage-2": "yes",
    });
  });

  it("should mutate custom resource with pruning", async () => {
    const f = await framework();
    const schema = {
      openAPIV3Schema: {
        type: "object",
        properties: {
          data: {
            type: "object",
            properties: { "mutation-start": { type: "string" }, "mutation-stage-1": { type: "string" } },
          },
        },
      },
    };
    const t = await testCrd([
      { name: "v1", storage: true, schema },
      { name: "v2", storage: false, schema },
    ]);
    await createMutating(f, f.unique, mutateCr(f, t));
    const res = await c.raw("POST", crPath(t, f.ns, "v1"), cr(t, "cr-instance-1", { "mutation-start": "yes" }));
    expect(res.status).toBe(201);
    expect((res.json as { data: unknown }).data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes" });
  });

  it("should mutate custom resource with different stored version", async () => {
    const f = await framework();
    const t = await testCrd([
      { name: "v1", storage: true },
      { name: "v2", storage: false },
    ]);
    await createMutating(f, f.unique, mutateCr(f, t));
    let res = await c.raw("POST", crPath(t, f.ns, "v1"), cr(t, "cr-instance-1", { "mutation-start": "yes" }));
    expect(res.status).toBe(201);
    const preserve = { openAPIV3Schema: { "x-kubernetes-preserve-unknown-fields": true, type: "object" } };
    res = await c.raw(
      "PATCH",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${t.name}`,
      {
        spec: {
          versions: [
            { name: "v1", storage: false, served: true, schema: preserve },
            { name: "v2", storage: true, served: true, schema: preserve },
          ],
        },
      },
      { "content-type": "application/merge-patch+json" },
    );
    expect(res.status).toBe(200);
    res = await c.raw("PATCH", crPath(t, f.ns, "v2", "cr-instance-1"), [{ op: "add", path: "/dummy", value: "test" }], {
      "content-type": "application/json-patch+json",
    });
    expect(res.status).toBe(200);
    const patched = res.json as { data: unknown; dummy: unknown };
    expect(patched.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes" });
    expect(patched.dummy).toBe("test");
  });
});
