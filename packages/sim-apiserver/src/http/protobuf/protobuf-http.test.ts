// Protobuf request bodies over HTTP against the real engine (FakeClock): create and update decode to what the JSON
// path stores, unknown fields come back as Warning headers, a kind without a schema keeps the 415, nothing is
// written on a bad body.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../../engine/sim-apiserver.js";
import { EngineBackend } from "../engine-backend.js";
import { fetchRaw } from "../http-client.test-util.js";
import { SimHttpServer } from "../server.js";
import { PROTOBUF_MEDIA_TYPE } from "./envelope.js";
import { encodeMessage, envelope, mapEntry, mfield, sfield, vfield } from "./wire-writer.test-util.js";

let engine: SimApiServer;
let server: SimHttpServer;
let base: string;
const CM = "/api/v1/namespaces/default/configmaps";
const proto = { "content-type": PROTOBUF_MEDIA_TYPE, accept: `${PROTOBUF_MEDIA_TYPE}, application/json` };

beforeAll(async () => {
  const clock = new FakeClock();
  engine = new SimApiServer({ clock, rand: seededRand(5), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  base = await server.start();
});
afterAll(async () => {
  await server.close();
  engine.stop();
});

describe("protobuf bodies over HTTP", () => {
  it("POST then PUT of a ConfigMap in protobuf: 201/200 in JSON, stored like the JSON path", async () => {
    const body = envelope("v1", "ConfigMap", [
      ...mfield(1, sfield(1, "pb"), mapEntry(11, "a", "1")),
      ...mapEntry(2, "k", "v"),
    ]);
    const created = await fetchRaw(`${base}${CM}`, { method: "POST", headers: proto, body });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/json");
    expect(created.headers.warning).toBeUndefined();
    const obj = created.json as { metadata: { resourceVersion: string; labels: unknown }; data: unknown };
    expect([obj.metadata.labels, obj.data]).toEqual([{ a: "1" }, { k: "v" }]);
    const rv = obj.metadata.resourceVersion;
    const update = envelope("v1", "ConfigMap", [
      ...mfield(1, sfield(1, "pb"), sfield(6, rv)),
      ...mapEntry(2, "k", "w"),
      ...vfield(77, 1),
    ]);
    const updated = await fetchRaw(`${base}${CM}/pb`, { method: "PUT", headers: proto, body: update });
    expect(updated.status).toBe(200);
    // The unknown field's key follows the envelope (23 bytes), metadata (8 + the RV) and the data entry (8).
    expect(updated.headers.warning).toBe(
      `299 - "unknown protobuf field 77 (wire type 0) of ConfigMap (byte ${39 + rv.length}) was ignored: the simulator's schema does not have it"`,
    );
    const got = await fetchRaw(`${base}${CM}/pb`);
    expect((got.json as { data: unknown }).data).toEqual({ k: "w" });
  });

  it("a Deployment in protobuf is stored with the same spec as its JSON twin", async () => {
    const spec = {
      replicas: 2,
      selector: { matchLabels: { app: "w" } },
      template: {
        metadata: { labels: { app: "w" } },
        spec: { containers: [{ name: "c", image: "nginx", resources: {} }] },
      },
      strategy: {},
    };
    const raw = encodeMessage("Deployment", { metadata: { name: "pbd" }, spec });
    const d = "/apis/apps/v1/namespaces/default/deployments";
    const viaProto = await fetchRaw(`${base}${d}`, {
      method: "POST",
      headers: proto,
      body: envelope("apps/v1", "Deployment", raw),
    });
    const viaJson = await fetchRaw(`${base}${d}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "jsd" }, spec }),
    });
    expect([viaProto.status, viaJson.status]).toEqual([201, 201]);
    expect((viaProto.json as { spec: unknown }).spec).toEqual((viaJson.json as { spec: unknown }).spec);
  });

  // The kinds `kubectl create` sends in protobuf (issue #21), each with the spec kubectl fills: created through
  // protobuf and through JSON, the stored objects agree on everything but the name and server-set metadata.
  const podSpec = { containers: [{ name: "c", image: "busybox", resources: {} }], restartPolicy: "OnFailure" };
  const typedCreates: { path: string; apiVersion: string; kind: string; body: Record<string, unknown> }[] = [
    {
      path: "/apis/batch/v1/namespaces/default/cronjobs",
      apiVersion: "batch/v1",
      kind: "CronJob",
      body: { spec: { schedule: "*/1 * * * *", jobTemplate: { spec: { template: { spec: podSpec } } } } },
    },
    {
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      body: { rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }] },
    },
    {
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      body: {
        subjects: [{ kind: "ServiceAccount", name: "default", namespace: "default" }],
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      },
    },
    {
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      body: { rules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] }] },
    },
    {
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      body: {
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }],
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
      },
    },
    {
      path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      body: { spec: { minAvailable: 1, selector: { matchLabels: { app: "w" } } } },
    },
    {
      path: "/apis/scheduling.k8s.io/v1/priorityclasses",
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      body: { value: 1000, description: "d", preemptionPolicy: "Never" },
    },
    {
      path: "/api/v1/namespaces/default/resourcequotas",
      apiVersion: "v1",
      kind: "ResourceQuota",
      body: { spec: { hard: { pods: "10", "requests.cpu": "2" } } },
    },
    {
      path: "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      body: {
        spec: {
          rules: [
            {
              host: "foo.com",
              http: {
                paths: [
                  { path: "/bar", pathType: "Exact", backend: { service: { name: "svc1", port: { number: 8080 } } } },
                ],
              },
            },
          ],
        },
      },
    },
    {
      path: "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      body: { spec: { holderIdentity: "me", leaseDurationSeconds: 15, renewTime: "2026-01-02T03:04:05.678901Z" } },
    },
  ];
  it.each(typedCreates)("$kind in protobuf is stored like its JSON twin", async ({ path, apiVersion, kind, body }) => {
    const name = kind.toLowerCase();
    const raw = encodeMessage(kind, { metadata: { name: `${name}-pb` }, ...body });
    const viaProto = await fetchRaw(`${base}${path}`, {
      method: "POST",
      headers: proto,
      body: envelope(apiVersion, kind, raw),
    });
    const viaJson = await fetchRaw(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion, kind, metadata: { name: `${name}-json` }, ...body }),
    });
    expect([viaProto.status, viaJson.status], JSON.stringify(viaProto.json)).toEqual([201, 201]);
    const { metadata: _p, ...fromProto } = viaProto.json as Record<string, unknown>;
    const { metadata: _j, ...fromJson } = viaJson.json as Record<string, unknown>;
    expect(fromProto).toEqual(fromJson);
    expect(fromProto).toMatchObject(body);
  });

  it("a kind without a schema is 415 and a malformed body 400; nothing is written", async () => {
    const rv = engine.currentResourceVersion;
    const podTemplate = await fetchRaw(`${base}/api/v1/namespaces/default/podtemplates`, {
      method: "POST",
      headers: proto,
      body: envelope("v1", "PodTemplate", mfield(1, sfield(1, "pt"))),
    });
    expect([podTemplate.status, (podTemplate.json as { reason: string }).reason]).toEqual([
      415,
      "UnsupportedMediaType",
    ]);
    expect((podTemplate.json as { message: string }).message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml; the simulator decodes no protobuf PodTemplate (v1): send it as JSON",
    );
    const bad = await fetchRaw(`${base}${CM}`, {
      method: "POST",
      headers: proto,
      body: Buffer.from([...envelope("v1", "ConfigMap", []), 0x0a, 0x7f]),
    });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(
      /^the object provided is unrecognized \(must be of type ConfigMap\): length 127 runs past the end/,
    );
    expect(engine.currentResourceVersion).toBe(rv);
  });
});
