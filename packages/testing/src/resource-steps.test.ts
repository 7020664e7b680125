// Histories over any resource: generated objects of built-in kinds and of a CRD pass the simulator's admission, spec
// changes bump the generation, deletes wait for the finalizer's removal, children carry owner references, and the
// fields a field selector reads are written.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, resources as kinds } from "@informer-ts/client";
import { validateCustomResource } from "@informer-ts/sim-apiserver/engine";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { applyStep, describeStep, historyArb, prepareNamespaces, type SimStep, simStepArb } from "./arbitraries.js";
import { builtinBodyArbs } from "./builtin-objects.js";
import { gadgetCrd } from "./internal/gadget-crd.test-util.js";
import { type HistoryResource, historySimResources, resourceStepArb } from "./resource-steps.js";
import { type GeneratedSchema, schemaArb } from "./schema-arbitrary.js";
import { createSimCluster, type SimCluster } from "./sim-cluster.js";

const { configmaps, pods, deployments } = builtinResources;

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

async function newCluster(resources: readonly HistoryResource[] = []): Promise<SimCluster> {
  cluster = await createSimCluster({ seed: 1, resources: historySimResources(resources) });
  await prepareNamespaces(cluster);
  return cluster;
}

const defaults = { namespaces: ["default"], names: ["a", "b"] };

describe("schemaArb", () => {
  it("generates values a CRD's structural schema validates (required, enum, bounds, pattern, maps)", () => {
    const schema = (gadgetCrd.spec as { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] })
      .versions[0]!.schema.openAPIV3Schema;
    const specSchema = (schema.properties as Record<string, GeneratedSchema>).spec!;
    fc.assert(
      fc.property(schemaArb(specSchema), (spec) => {
        expect(validateCustomResource({ spec }, schema as never)).toEqual([]);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("names a $ref it cannot resolve", () => {
    expect(() => schemaArb({ $ref: "api.core.v1.Nope" })).toThrow(/api\.core\.v1\.Nope/);
  });
});

describe("history.resources", () => {
  it("built-in kinds: generated spec changes and status writes pass admission", async () => {
    const c = await newCluster();
    const generated = [
      kinds.pods,
      kinds.deployments,
      kinds.statefulSets,
      kinds.replicaSets,
      kinds.daemonSets,
      kinds.jobs,
      kinds.services,
      kinds.secrets,
      kinds.configMaps,
      kinds.serviceAccounts,
      kinds.leases,
      kinds.nodes,
    ];
    for (const resource of generated) {
      const steps = fc.sample(fc.array(resourceStepArb({ resource }, defaults), { minLength: 30, maxLength: 30 }), {
        seed: 3,
        numRuns: 1,
      })[0]!;
      for (const s of steps) {
        const outcome = await applyStep(c, s);
        expect(outcome, `${describeStep(s)} → ${outcome}`).toMatch(/^(ok|absent)/);
      }
    }
  });

  it("names a built-in kind it has no objects of", () => {
    expect(() => builtinBodyArbs(builtinResources.events)).toThrow(/events.*give them with spec/);
  });

  it("a CRD: schema-generated objects pass its validation; spec changes bump the generation; status writes go through /status", async () => {
    const resources = [{ crd: gadgetCrd }];
    const c = await newCluster(resources);
    const steps = fc.sample(fc.array(resourceStepArb(resources[0]!, defaults), { minLength: 40, maxLength: 40 }), {
      seed: 5,
      numRuns: 1,
    })[0]!;
    const outcomes: string[] = [];
    for (const s of steps) outcomes.push(`${describeStep(s)} → ${await applyStep(c, s)}`);
    expect(outcomes.filter((o) => o.includes("refused"))).toEqual([]);
    // An update that changed the spec moved the generation past 1; a status write never does.
    expect(outcomes.some((o) => /^put .* generation=[2-9]/.test(o))).toBe(true);
    expect(outcomes.some((o) => o.startsWith("another controller writes gadgets.example.com"))).toBe(true);
  });

  it("deletes are held by the finalizer until the release step; children carry owner references", async () => {
    const held: HistoryResource = { resource: deployments, finalizer: "example.com/cleanup" };
    const child: HistoryResource = { resource: configmaps, ownedBy: deployments };
    const c = await newCluster();
    const one = (r: HistoryResource, kind: SimStep["kind"]) =>
      fc.sample(
        resourceStepArb(r, defaults).filter((s) => s.kind === kind && s.name === "a"),
        { seed: 1, numRuns: 1 },
      )[0]!;
    expect(await applyStep(c, one(held, "resource-put"))).toMatch(/^ok rv=\d+ generation=1/);
    expect(await applyStep(c, one(child, "resource-put"))).toMatch(/child of deployments.apps a/);
    const owned = await c.run(() => c.client.get(configmaps, "a", { namespace: "default" }));
    expect(owned.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Deployment", name: "a", controller: true });
    expect(await applyStep(c, one(held, "resource-delete"))).toMatch(/held by finalizers example.com\/cleanup/);
    expect(c.engine.storage.snapshot(c.engine.resource("deployments.apps")).length).toBe(1);
    const release = one(held, "resource-release");
    expect(describeStep(release)).toBe(
      "another controller removes finalizer example.com/cleanup from deployments.apps default/a",
    );
    expect(await applyStep(c, release)).toMatch(/^ok/);
    await c.clock.step(1_000);
    expect(c.engine.storage.snapshot(c.engine.resource("deployments.apps")).length).toBe(0);
    // The garbage collector deleted the owned ConfigMap with its owner.
    const left = c.engine.storage.snapshot(c.engine.resource("configmaps")).map(([, o]) => o.metadata?.name);
    expect(left).not.toContain("a");
  });

  it("field steps write what a field selector reads (spec.nodeName, status.phase)", async () => {
    const r: HistoryResource = {
      resource: pods,
      fields: { "spec.nodeName": ["node-a"], "status.phase": ["Running"] },
    };
    const c = await newCluster();
    const steps = fc.sample(
      resourceStepArb(r, defaults).filter((s) => s.kind === "resource-field"),
      {
        seed: 2,
        numRuns: 12,
      },
    );
    // A Pod's nodeName is set at creation only (upstream's ValidatePodUpdate refuses changing it), so a field step on
    // an existing Pod may be refused: what counts is what the server took.
    const took = new Set<SimStep>();
    for (const s of steps) if ((await applyStep(c, s)).startsWith("ok")) took.add(s);
    const onNode = await c.run(() =>
      c.client.list(pods, { namespace: "default", fieldSelector: "spec.nodeName=node-a" }),
    );
    const running = await c.run(() =>
      c.client.list(pods, { namespace: "default", fieldSelector: "status.phase=Running" }),
    );
    const named = (l: { items: readonly KubeObject[] }) => l.items.map((o) => o.metadata?.name).sort();
    const byNode = steps
      .filter((s) => took.has(s) && s.kind === "resource-field" && s.path === "spec.nodeName")
      .map((s) => s.name);
    const byPhase = steps
      .filter((s) => took.has(s) && s.kind === "resource-field" && s.path === "status.phase")
      .map((s) => s.name);
    expect(byNode.length).toBeGreaterThan(0);
    expect(byPhase.length).toBeGreaterThan(0);
    expect(named(onNode)).toEqual([...new Set(byNode)].sort());
    expect(named(running)).toEqual([...new Set(byPhase)].sort());
  });

  it("without resources a seed generates exactly the histories it did before; with them, they mix in", () => {
    const before = fc.sample(historyArb({}), { seed: 11, numRuns: 5 });
    const again = fc.sample(historyArb({ resources: [] }), { seed: 11, numRuns: 5 });
    expect(again).toEqual(before);
    const mixed = fc.sample(simStepArb({ resources: [{ crd: gadgetCrd }] }), { seed: 11, numRuns: 200 });
    expect(mixed.some((s) => s.kind.startsWith("resource-"))).toBe(true);
    expect(mixed.some((s) => s.kind === "put")).toBe(true);
  });
});
