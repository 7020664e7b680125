// ValidatingAdmissionPolicy over HTTP: a Deny is the dispatcher's Status body, a Warn a `Warning: 299` header, the
// status controller's type checking readable on the policy — the same plugin the in-process face runs.
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";

let s: EngineServer;
let clock: FakeClock;
const json = { "content-type": "application/json" };
const AR = "/apis/admissionregistration.k8s.io/v1";
const CM = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  clock = new FakeClock();
  s = await startEngineServer(clock);
});
afterAll(async () => {
  await s.close();
});

async function post(path: string, body: unknown) {
  return fetchRaw(`${s.url}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
}

describe("ValidatingAdmissionPolicy over HTTP", () => {
  it("Deny answers 422 with the Status; Warn admits with a Warning header", async () => {
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-big" },
      spec: {
        matchConstraints: {
          resourceRules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
        },
        validations: [
          { expression: "object.data.size() < 2", messageExpression: "'has ' + string(object.data.size())" },
        ],
      },
    };
    expect((await post(`${AR}/validatingadmissionpolicies`, policy)).status).toBe(201);
    const bind = (name: string, actions: string[], label: string) => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: "no-big",
        validationActions: actions,
        matchResources: { objectSelector: { matchLabels: { mode: label } } },
      },
    });
    expect((await post(`${AR}/validatingadmissionpolicybindings`, bind("deny", ["Deny"], "deny"))).status).toBe(201);
    expect((await post(`${AR}/validatingadmissionpolicybindings`, bind("warn", ["Warn"], "warn"))).status).toBe(201);
    const cm = (name: string, mode: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, labels: { mode } },
      data: { a: "1", b: "2" },
    });
    const denied = await post(CM, cm("denied", "deny"));
    const message = "ValidatingAdmissionPolicy 'no-big' with binding 'deny' denied request: has 2";
    expect(denied.status).toBe(422);
    expect(denied.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `configmaps "denied" is forbidden: ${message}`,
      reason: "Invalid",
      details: { name: "denied", kind: "configmaps", causes: [{ message }] },
      code: 422,
    });
    expect((await fetchRaw(`${s.url}${CM}/denied`)).status).toBe(404);
    const warned = await post(CM, cm("warned", "warn"));
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'no-big' with binding 'warn': has 2"`,
    );
    await clock.step(0);
    const checked = (await fetchRaw(`${s.url}${AR}/validatingadmissionpolicies/no-big`)).json as {
      status?: { observedGeneration?: number; typeChecking?: unknown };
    };
    expect(checked.status).toEqual({ observedGeneration: 1, typeChecking: {} });
  });
});
