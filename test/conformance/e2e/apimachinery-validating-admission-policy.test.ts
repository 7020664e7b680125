// apimachinery/validatingadmissionpolicy.go — the policy tests re-implemented with @kubernetes/client-node's typed
// clients against the simulator over HTTP (the "API operations" ones are in api-groups-lifecycle.test.ts).
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdWithSpec } from "../../../packages/sim-apiserver/src/engine/resources.test-util.js";
import { createDefinition } from "./crd-fixture.js";
import { codeOf, type E2eCluster, pollFor, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let admission: K8s.AdmissionregistrationV1Api;
let apps: K8s.AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster();
  admission = c.kc.makeApiClient(c.k8s.AdmissionregistrationV1Api);
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});
afterAll(async () => {
  await c.close();
});

/** The framework's namespace, labelled `<name>: "true"` so the bindings' namespace selectors pick it (`labelNamespace`). */
async function labelledNamespace(base: string): Promise<string> {
  const ns = await c.namespace(base);
  const res = await c.raw(
    "PATCH",
    `/api/v1/namespaces/${ns}`,
    { metadata: { labels: { [ns]: "true" } } },
    {
      "content-type": "application/merge-patch+json",
    },
  );
  expect(res.status).toBe(200);
  return ns;
}

interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
}

/** `newValidatingAdmissionPolicyBuilder(name).MatchUniqueNamespace(unique)…Build()`. */
function policy(
  name: string,
  unique: string,
  rule: { groups: string[]; versions: string[]; resources: string[] },
  validations: Validation[],
  variables: { name: string; expression: string }[] = [],
): K8s.V1ValidatingAdmissionPolicy {
  return {
    metadata: { name },
    spec: {
      matchConstraints: {
        namespaceSelector: { matchLabels: { [unique]: "true" } },
        resourceRules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: rule.groups,
            apiVersions: rule.versions,
            resources: rule.resources,
          },
        ],
      },
      validations,
      ...(variables.length > 0 && { variables }),
    },
  };
}

/** `createBinding`: binds the policy in the labelled namespace with the Deny action. */
function binding(name: string, unique: string, policyName: string): K8s.V1ValidatingAdmissionPolicyBinding {
  return {
    metadata: { name },
    spec: {
      policyName,
      matchResources: { namespaceSelector: { matchLabels: { [unique]: "true" } } },
      validationActions: ["Deny"],
    },
  };
}

/** `basicDeployment` and `basicReplicaSet`: an nginx workload of `replicas` labelled `app: nginx` (the two shapes agree). */
function basicWorkload(name: string, replicas: number): K8s.V1Deployment & K8s.V1ReplicaSet {
  return {
    metadata: { name, labels: { app: "nginx" } },
    spec: {
      replicas,
      selector: { matchLabels: { app: "nginx" } },
      template: {
        metadata: { labels: { app: "nginx" } },
        spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
      },
    },
  };
}

const DEPLOYMENTS = { groups: ["apps"], versions: ["v1"], resources: ["deployments"] };

/** "waiting until the marker is denied": creates (and deletes) a 1-replica Deployment until the create is a 422. */
async function waitForMarkerDenied(ns: string): Promise<{ code: number | undefined; body: unknown }> {
  return pollFor(async () => {
    try {
      await apps.createNamespacedDeployment({ namespace: ns, body: basicWorkload("marker-deployment", 1) });
      await apps.deleteNamespacedDeployment({ namespace: ns, name: "marker-deployment" });
      return undefined;
    } catch (err) {
      const code = codeOf(err);
      if (code === 422) return { code, body: (err as { body?: unknown }).body };
      throw err;
    }
  });
}

/**
 * "testing a replicated Deployment to be allowed" (with `replicas`) and "testing a non-replicated ReplicaSet not to
 * be denied" (the policy matches deployments only).
 */
async function expectAllowed(ns: string, replicas: number): Promise<void> {
  const replicated = await apps.createNamespacedDeployment({
    namespace: ns,
    body: basicWorkload("replicated", replicas),
  });
  expect(replicated.spec?.replicas).toBe(replicas);
  const rs = await apps.createNamespacedReplicaSet({ namespace: ns, body: basicWorkload("non-replicated", 1) });
  expect(rs.spec?.replicas).toBe(1);
}

/** "waiting for the type check to finish with warnings": each `[fieldRef, a substring of the warning]`, in order. */
async function expectWarnings(name: string, expected: readonly (readonly [string, string])[]): Promise<void> {
  const warned = await typeChecked(name);
  const warnings = warned.status?.typeChecking?.expressionWarnings ?? [];
  expect(warnings.map((w) => w.fieldRef)).toEqual(expected.map(([fieldRef]) => fieldRef));
  expected.forEach(([, text], i) => {
    expect(warnings[i]!.warning).toContain(text);
  });
}

/** "waiting for the type check to finish": the policy once `status.typeChecking` is set. */
async function typeChecked(name: string): Promise<K8s.V1ValidatingAdmissionPolicy> {
  return pollFor(async () => {
    const p = await admission.readValidatingAdmissionPolicy({ name });
    return p.status?.typeChecking === undefined ? undefined : p;
  });
}

describe("[sig-api-machinery] ValidatingAdmissionPolicy [Privileged:ClusterAdmin] (apimachinery/validatingadmissionpolicy.go)", () => {
  it("should validate against a Deployment", async () => {
    const ns = await labelledNamespace("validating-admission-policy");
    const p = await admission.createValidatingAdmissionPolicy({
      body: policy(`${ns}.policy.example.com`, ns, DEPLOYMENTS, [
        {
          expression: "object.spec.replicas > 1",
          messageExpression: "'wants replicas > 1, got ' + object.spec.replicas",
        },
        {
          expression: `namespaceObject.metadata.name == '${ns}'`,
          message: "Internal error! Other namespace should not be allowed.",
        },
      ]),
    });
    const b = await admission.createValidatingAdmissionPolicyBinding({
      body: binding(`${ns}.binding.example.com`, ns, p.metadata!.name!),
    });
    try {
      const denied = await waitForMarkerDenied(ns);
      const body = (typeof denied.body === "string" ? JSON.parse(denied.body) : denied.body) as K8s.V1Status;
      expect(body.reason).toBe("Invalid");
      // The messageExpression fails (string + int) and there is no message: the expression is the message.
      expect(body.message).toBe(
        `deployments.apps "marker-deployment" is forbidden: ValidatingAdmissionPolicy '${ns}.policy.example.com' with binding '${ns}.binding.example.com' denied request: failed expression: object.spec.replicas > 1`,
      );
      await expectAllowed(ns, 2);
    } finally {
      await admission.deleteValidatingAdmissionPolicyBinding({ name: b.metadata!.name! });
      await admission.deleteValidatingAdmissionPolicy({ name: p.metadata!.name! });
    }
  });

  it("should type check validation expressions", async () => {
    const ns = await labelledNamespace("validating-admission-policy");
    const correct = await admission.createValidatingAdmissionPolicy({
      body: policy(`${ns}.correct-policy.example.com`, ns, DEPLOYMENTS, [{ expression: "object.spec.replicas > 1" }]),
    });
    const confused = await admission.createValidatingAdmissionPolicy({
      body: policy(`${ns}.confused-policy.example.com`, ns, DEPLOYMENTS, [
        {
          expression: "object.spec.replicas > '1'",
          messageExpression: "'wants replicas > 1, got ' + object.spec.replicas",
        },
      ]),
    });
    try {
      const clean = await typeChecked(correct.metadata!.name!);
      expect(clean.status?.typeChecking?.expressionWarnings ?? []).toEqual([]);
      expect(clean.status?.observedGeneration).toBe(clean.metadata?.generation);
      await expectWarnings(confused.metadata!.name!, [
        ["spec.validations[0].expression", "found no matching overload for '_>_' applied to '(int, string)'"],
        ["spec.validations[0].messageExpression", "found no matching overload for '_+_' applied to '(string, int)'"],
      ]);
    } finally {
      await admission.deleteValidatingAdmissionPolicy({ name: correct.metadata!.name! });
      await admission.deleteValidatingAdmissionPolicy({ name: confused.metadata!.name! });
    }
  });

  it("should allow expressions to refer variables.", async () => {
    const ns = await labelledNamespace("validating-admission-policy");
    const p = await admission.createValidatingAdmissionPolicy({
      body: policy(
        `${ns}.policy.example.com`,
        ns,
        DEPLOYMENTS,
        [{ expression: "variables.replicas > 1" }, { expression: "variables.oddReplicas" }],
        [
          { name: "replicas", expression: "object.spec.replicas" },
          { name: "oddReplicas", expression: "variables.replicas % 2 == 1" },
        ],
      ),
    });
    const b = await admission.createValidatingAdmissionPolicyBinding({
      body: binding(`${ns}.binding.example.com`, ns, p.metadata!.name!),
    });
    try {
      await waitForMarkerDenied(ns);
      await expectAllowed(ns, 3);
    } finally {
      await admission.deleteValidatingAdmissionPolicyBinding({ name: b.metadata!.name! });
      await admission.deleteValidatingAdmissionPolicy({ name: p.metadata!.name! });
    }
  });

  it("should type check a CRD", async () => {
    const ns = await labelledNamespace("validating-admission-policy");
    const group = `stable.${ns}`;
    // `crontabExampleCRD`: a namespaced CronTab with a structural spec of cronSpec, image and replicas.
    const crd = await createDefinition(
      c,
      crdWithSpec(group, "crontabs", "CronTab", {
        type: "object",
        properties: { cronSpec: { type: "string" }, image: { type: "string" }, replicas: { type: "integer" } },
      }) as K8s.KubernetesObject,
    );
    // "wait for the CRD to be published": its group-version's OpenAPI v3 document.
    await pollFor(async () => ((await c.raw("GET", `/openapi/v3/apis/${group}/v1`)).status === 200 ? true : undefined));
    const crontabs = { groups: [group], versions: ["v1"], resources: ["crontabs"] };
    const correct = await admission.createValidatingAdmissionPolicy({
      body: policy(`${ns}.correct-crd-policy.example.com`, ns, crontabs, [{ expression: "object.spec.replicas > 1" }]),
    });
    const confused = await admission.createValidatingAdmissionPolicy({
      body: policy(`${ns}.confused-crd-policy.example.com`, ns, crontabs, [
        { expression: "object.spec.replicas > '1'" },
        { expression: "object.spec.maxRetries < 10" },
      ]),
    });
    try {
      const clean = await typeChecked(correct.metadata!.name!);
      expect(clean.status?.typeChecking?.expressionWarnings ?? []).toEqual([]);
      await expectWarnings(confused.metadata!.name!, [
        ["spec.validations[0].expression", "found no matching overload for '_>_' applied to '(int, string)'"],
        ["spec.validations[1].expression", "undefined field 'maxRetries'"],
      ]);
    } finally {
      await admission.deleteValidatingAdmissionPolicy({ name: correct.metadata!.name! });
      await admission.deleteValidatingAdmissionPolicy({ name: confused.metadata!.name! });
      await c.raw("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata!.name}`);
    }
  });
});
