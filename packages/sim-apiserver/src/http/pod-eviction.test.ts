// pods/eviction over HTTP against the real engine (FakeClock): the cases of upstream's
// pkg/registry/core/pod/storage/eviction_test.go (TestEviction, TestEvictionIngorePDB, TestEvictionPDBStatus) that do
// not depend on injected storage conflicts, plus the protobuf body kubectl drain sends and the discovery entry.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../engine/sim-apiserver.js";
import { EngineBackend } from "./engine-backend.js";
import { fetchRaw } from "./http-client.test-util.js";
import { PROTOBUF_MEDIA_TYPE } from "./protobuf/envelope.js";
import { envelope, mfield, sfield, vfield } from "./protobuf/wire-writer.test-util.js";
import { SimHttpServer } from "./server.js";

let engine: SimApiServer;
let server: SimHttpServer;
let base: string;
const PODS = "/api/v1/namespaces/default/pods";
const PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
const json = { "content-type": "application/json" };

beforeAll(async () => {
  const clock = new FakeClock();
  engine = new SimApiServer({ clock, rand: seededRand(9), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  base = await server.start();
});
afterAll(async () => {
  await server.close();
  engine.stop();
});

async function send(method: string, path: string, body?: unknown) {
  return fetchRaw(`${base}${path}`, {
    method,
    headers: json,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

interface PodSetup {
  readonly name: string;
  readonly phase?: string;
  readonly ready?: boolean;
  readonly labels?: Record<string, string>;
  readonly finalizers?: string[];
}

/** A pod bound to node `foo` (as upstream's `validNewPod` with `Spec.NodeName = "foo"`), its status as given. */
async function createPod(p: PodSetup): Promise<void> {
  const created = await send("POST", PODS, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: p.name, labels: p.labels ?? { a: "true" }, ...(p.finalizers && { finalizers: p.finalizers }) },
    spec: { nodeName: "foo", containers: [{ name: "c", image: "nginx" }] },
  });
  expect(created.status, created.text).toBe(201);
  if (p.phase === undefined && p.ready === undefined) return;
  const pod = created.json as Record<string, unknown>;
  const status = {
    ...(p.phase !== undefined && { phase: p.phase }),
    ...(p.ready !== undefined && { conditions: [{ type: "Ready", status: p.ready ? "True" : "False" }] }),
  };
  const updated = await send("PUT", `${PODS}/${p.name}/status`, { ...pod, status });
  expect(updated.status, updated.text).toBe(200);
}

interface PdbStatus {
  readonly disruptionsAllowed: number;
  readonly currentHealthy?: number;
  readonly desiredHealthy?: number;
}

/** PDB `name` selecting `selector`, its status written as the disruption controller would (observed). */
async function createPdb(name: string, selector: Record<string, string>, status: PdbStatus, observed = true) {
  const created = await send("POST", PDBS, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name },
    spec: { selector: { matchLabels: selector }, minAvailable: 1 },
  });
  expect(created.status, created.text).toBe(201);
  const pdb = created.json as { metadata: { generation?: number } };
  const generation = pdb.metadata.generation ?? 0;
  const st = {
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
    ...status,
    observedGeneration: observed ? generation : generation - 1,
  };
  const updated = await send("PUT", `${PDBS}/${name}/status`, { ...pdb, status: st });
  expect(updated.status, updated.text).toBe(200);
}

async function evict(
  urlName: string,
  bodyName: string,
  deleteOptions: Record<string, unknown> = { gracePeriodSeconds: 0 },
) {
  return send("POST", `${PODS}/${urlName}/eviction`, {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: bodyName, namespace: "default" },
    deleteOptions,
  });
}

async function cleanup(): Promise<void> {
  await send("DELETE", PDBS);
  const pods = (await send("GET", PODS)).json as { items: { metadata: { name: string; finalizers?: string[] } }[] };
  for (const p of pods.items) {
    if (p.metadata.finalizers !== undefined) {
      await fetchRaw(`${base}${PODS}/${p.metadata.name}`, {
        method: "PATCH",
        headers: { "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ metadata: { finalizers: null } }),
      });
    }
    await send("DELETE", `${PODS}/${p.metadata.name}?gracePeriodSeconds=0`);
  }
}

async function podExists(name: string): Promise<boolean> {
  return (await send("GET", `${PODS}/${name}`)).status === 200;
}

describe("pods/eviction", () => {
  // TestEviction.
  const testEviction: {
    name: string;
    allowed: number;
    selector?: Record<string, string>;
    phase?: string;
    badNameInURL?: boolean;
    expectCode: number;
  }[] = [
    { name: "matching pdbs with no disruptions allowed, pod running", allowed: 0, phase: "Running", expectCode: 429 },
    { name: "matching pdbs with no disruptions allowed, pod pending", allowed: 0, phase: "Pending", expectCode: 201 },
    {
      name: "matching pdbs with no disruptions allowed, pod succeeded",
      allowed: 0,
      phase: "Succeeded",
      expectCode: 201,
    },
    { name: "matching pdbs with no disruptions allowed, pod failed", allowed: 0, phase: "Failed", expectCode: 201 },
    { name: "matching pdbs with disruptions allowed", allowed: 1, phase: "Running", expectCode: 201 },
    { name: "non-matching pdbs", allowed: 0, selector: { b: "true" }, phase: "Running", expectCode: 201 },
    {
      name: "matching pdbs with disruptions allowed but bad name in Url",
      allowed: 1,
      phase: "Running",
      badNameInURL: true,
      expectCode: 400,
    },
  ];
  for (const [i, tc] of testEviction.entries()) {
    it(`TestEviction: ${tc.name}`, async () => {
      const pod = `t${i + 1}`;
      await createPod({ name: pod, phase: tc.phase, ready: true });
      await createPdb("foo", tc.selector ?? { a: "true" }, { disruptionsAllowed: tc.allowed });
      const res = await evict(tc.badNameInURL === true ? `${pod}bad-name` : pod, pod);
      expect(res.status, res.text).toBe(tc.expectCode);
      if (tc.expectCode === 429) {
        expect(res.json).toMatchObject({
          kind: "Status",
          status: "Failure",
          reason: "TooManyRequests",
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
          details: {
            causes: [
              {
                reason: "DisruptionBudget",
                message: "The disruption budget foo needs 0 healthy pods and has 0 currently",
              },
            ],
          },
        });
      }
      if (tc.badNameInURL === true) {
        expect((res.json as { message: string }).message).toContain("does not match the name on the URL");
      }
      expect(await podExists(pod)).toBe(tc.expectCode !== 201);
      if (tc.expectCode === 201) expect(res.json).toMatchObject({ kind: "Status", status: "Success" });
      await cleanup();
    });
  }

  // TestEvictionIngorePDB (the cases without injected delete conflicts).
  it("TestEvictionIngorePDB: matching pdbs with no disruptions allowed, pod terminating", async () => {
    await createPod({ name: "t6", phase: "Running", ready: true, finalizers: ["example.com/hold"] });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 0 });
    expect((await send("DELETE", `${PODS}/t6?gracePeriodSeconds=0`)).status).toBe(200);
    const res = await evict("t6", "t6", { gracePeriodSeconds: 300 });
    expect(res.status, res.text).toBe(201);
    await cleanup();
  });

  it("TestEvictionIngorePDB: matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours", async () => {
    await createPod({ name: "t7", phase: "Running", ready: true });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    const res = await evict("t7", "t7");
    expect(res.status, res.text).toBe(429);
    expect(await podExists("t7")).toBe(true);
    await cleanup();
  });

  it("TestEvictionIngorePDB: matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours", async () => {
    await createPod({ name: "t8", phase: "Running", ready: false });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    const res = await evict("t8", "t8");
    expect(res.status, res.text).toBe(201);
    expect(await podExists("t8")).toBe(false);
    // Not decremented: the unready pod did not count towards healthy.
    const pdb = (await send("GET", `${PDBS}/foo`)).json as {
      status: { disruptionsAllowed: number; disruptedPods?: unknown };
    };
    expect(pdb.status.disruptionsAllowed).toBe(0);
    expect(pdb.status.disruptedPods).toBeUndefined();
    await cleanup();
  });

  it("TestEvictionPDBStatus: the budget is decremented, the pod recorded in disruptedPods, DisruptionAllowed False at 0", async () => {
    await createPod({ name: "p1", phase: "Running", ready: true });
    await createPod({ name: "p2", phase: "Running", ready: true });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    expect((await evict("p1", "p1")).status).toBe(201);
    const pdb = (await send("GET", `${PDBS}/foo`)).json as {
      status: { disruptionsAllowed: number; disruptedPods: Record<string, string>; conditions: unknown[] };
    };
    expect(pdb.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(pdb.status.disruptedPods)).toEqual(["p1"]);
    expect(pdb.status.conditions).toEqual([
      expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" }),
    ]);
    const second = await evict("p2", "p2");
    expect(second.status).toBe(429);
    expect(await podExists("p2")).toBe(true);
    await cleanup();
  });

  it("a budget not yet observed by the disruption controller is 429 with a retry-after; dry run deletes nothing", async () => {
    await createPod({ name: "g1", phase: "Running", ready: true });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 5 }, false);
    const res = await evict("g1", "g1");
    expect(res.status).toBe(429);
    expect(res.json).toMatchObject({
      details: {
        retryAfterSeconds: 10,
        causes: [
          { reason: "DisruptionBudget", message: "The disruption budget foo is still being processed by the server." },
        ],
      },
    });
    await cleanup();
    await createPod({ name: "d1", phase: "Running", ready: true });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 1 });
    expect((await evict("d1", "d1", { dryRun: ["All"] })).status).toBe(201);
    expect(await podExists("d1")).toBe(true);
    const pdb = (await send("GET", `${PDBS}/foo`)).json as { status: { disruptionsAllowed: number } };
    expect(pdb.status.disruptionsAllowed).toBe(1);
    await cleanup();
  });

  it("two budgets selecting the pod: 500 naming the limitation; a missing pod: 404", async () => {
    await createPod({ name: "m1", phase: "Running", ready: true });
    await createPdb("foo", { a: "true" }, { disruptionsAllowed: 1 });
    await createPdb("bar", { a: "true" }, { disruptionsAllowed: 1 });
    const res = await evict("m1", "m1");
    expect(res.status).toBe(500);
    expect((res.json as { message: string }).message).toBe(
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    );
    expect(await podExists("m1")).toBe(true);
    await cleanup();
    expect((await evict("nope", "nope")).status).toBe(404);
  });

  it("a protobuf Eviction (what kubectl drain sends) evicts; discovery lists pods/eviction as policy/v1 Eviction", async () => {
    await createPod({ name: "pb", phase: "Running", ready: true });
    const body = envelope("policy/v1", "Eviction", [
      ...mfield(1, sfield(1, "pb"), sfield(3, "default")),
      ...mfield(2, vfield(1, 0)),
    ]);
    const res = await fetchRaw(`${base}${PODS}/pb/eviction`, {
      method: "POST",
      headers: { "content-type": PROTOBUF_MEDIA_TYPE, accept: `${PROTOBUF_MEDIA_TYPE}, application/json` },
      body,
    });
    expect(res.status, res.text).toBe(201);
    expect(await podExists("pb")).toBe(false);
    const v1 = (await send("GET", "/api/v1")).json as { resources: { name: string }[] };
    expect(v1.resources.find((r) => r.name === "pods/eviction")).toEqual({
      name: "pods/eviction",
      singularName: "",
      namespaced: true,
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: ["create"],
    });
    expect(v1.resources.map((r) => r.name)).toEqual(expect.arrayContaining(["pods/binding", "serviceaccounts/token"]));
  });

  // test/integration/evictions/evictions_test.go TestEvictionVersions: pods/eviction takes policy/v1 and
  // policy/v1beta1 Evictions (EvictionREST.AcceptsGroupVersion), though policy/v1beta1 is no longer served as a group
  // version; both answer a v1 Status, and any other version is a 400.
  it("TestEvictionVersions: policy/v1 and policy/v1beta1 Evictions are accepted, other versions are not", async () => {
    for (const version of ["policy/v1", "policy/v1beta1"]) {
      const name = `ver-${version.replace("/", "-")}`;
      await createPod({ name, phase: "Running", ready: true });
      const res = await send("POST", `${PODS}/${name}/eviction`, {
        apiVersion: version,
        kind: "Eviction",
        metadata: { name, namespace: "default" },
        deleteOptions: { gracePeriodSeconds: 0 },
      });
      expect(res.status, `${version}: ${res.text}`).toBe(201);
      expect(res.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success" });
      expect(await podExists(name)).toBe(false);
    }
    await createPod({ name: "ver-other", phase: "Running", ready: true });
    const other = await send("POST", `${PODS}/ver-other/eviction`, {
      apiVersion: "policy/v2",
      kind: "Eviction",
      metadata: { name: "ver-other", namespace: "default" },
    });
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({
      message: "the API version in the data (policy/v2) does not match the expected API version (policy/v1)",
    });
    expect(await podExists("ver-other")).toBe(true);
    const groups = (await send("GET", "/apis/policy")).json as { versions: { version: string }[] };
    expect(groups.versions.map((v) => v.version)).toEqual(["v1"]);
  });
});
