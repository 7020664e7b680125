import { type Pod, resources } from "@informer-ts/client";
import { FAST_POD_STAGES, type Stage } from "@informer-ts/sim-cluster";
import { createSimCluster } from "@informer-ts/testing";
import { describe, expect, it } from "vitest";
import { all, available, conditionTrue, job, podsOf, replicaSet, statefulSet, stored } from "./cluster-helpers.js";

interface Trace {
  readonly pods: string[];
  readonly bindings: Record<string, string>;
  readonly events: string[];
  readonly requests: string[];
  /** Open watches of the cluster's informers made straight on the engine (informerSource "engine"). */
  readonly engineWatches: number;
}

async function run(seed: number, stages?: readonly Stage[], informerSource?: "client" | "engine"): Promise<Trace> {
  const c = await createSimCluster({
    seed,
    cluster: { nodes: 4, ...(stages !== undefined && { stages }) },
    ...(informerSource !== undefined && { informerSource }),
  });
  try {
    await c.client.create(resources.replicaSets, replicaSet("web", 8));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 8) });
    await c.client.patchScale(resources.replicaSets, "web", { spec: { replicas: 3 } }, { namespace: "default" });
    // Scaled-down pods are deleted gracefully (terminationGracePeriodSeconds defaults to 30): the kubelet stand-in's
    // pod-delete stage removes them once their deletionTimestamp comes.
    await c.settle({ maxMs: 120_000, until: () => available(c, "web", 3)() && podsOf(c, "web").length === 3 });
    const pods = podsOf(c, "web");
    return {
      engineWatches: c.inFlight().filter((r) => r.verb === "watch" && r.userAgent === "sim-cluster/informers").length,
      pods: pods.map((p) => p.metadata?.name ?? ""),
      bindings: Object.fromEntries(pods.map((p: Pod) => [p.metadata?.name ?? "", p.spec?.nodeName ?? ""])),
      events: all<{ reason?: string; message?: string; metadata?: { creationTimestamp?: string } }>(c, "events")
        .map((e) => `${e.metadata?.creationTimestamp} ${e.reason} ${e.message}`)
        .sort(),
      requests: c.requests.map(
        (r) => `${r.receivedAt} ${r.verb} ${r.resource} ${r.namespace ?? ""}/${r.name ?? ""} ${r.code}`,
      ),
    };
  } finally {
    await c.close();
  }
}

describe("determinism of the simulated cluster", () => {
  it("the same seed gives the same pod names, node bindings, events and request order", async () => {
    const a = await run(7);
    const b = await run(7);
    expect(b.pods).toEqual(a.pods);
    expect(b.bindings).toEqual(a.bindings);
    expect(b.events).toEqual(a.events);
    expect(b.requests).toEqual(a.requests);
    expect(a.pods).toHaveLength(3);
    expect(a.events.length).toBeGreaterThan(10);
  });

  it("the same holds under FAST_POD_STAGES (one status write per start) with the informers' managedFields trim", async () => {
    const a = await run(7, FAST_POD_STAGES);
    const b = await run(7, FAST_POD_STAGES);
    expect(b.pods).toEqual(a.pods);
    expect(b.bindings).toEqual(a.bindings);
    expect(b.events).toEqual(a.events);
    expect(b.requests).toEqual(a.requests);
    expect(a.pods).toHaveLength(3);
  });

  it("the same holds with the informers on the engine's own objects (informerSource engine, trimmed), and it creates what the client-fed informers create", async () => {
    const a = await run(7, FAST_POD_STAGES, "engine");
    const b = await run(7, FAST_POD_STAGES, "engine");
    expect(b.pods).toEqual(a.pods);
    expect(b.bindings).toEqual(a.bindings);
    expect(b.events).toEqual(a.events);
    expect(b.requests).toEqual(a.requests);
    expect(a.pods).toHaveLength(3);
    // The informers' lists and watches are engine calls now, not the kit's requests.
    const viaClient = await run(7, FAST_POD_STAGES, "client");
    // Timing differs (no HTTP framing), so the order of writes and which pods a scale-down picks may differ; what was created
    // (pods, their bindings to nodes, the ReplicaSet) may not.
    const creates = (t: Trace) =>
      t.requests
        .filter((r) => / create (pods|pods\/binding|replicasets) /.test(r))
        .map((r) => r.split(" ").slice(1).join(" "))
        .sort();
    expect(creates(a).length).toBeGreaterThanOrEqual(16);
    expect(creates(a)).toEqual(creates(viaClient));
  });

  it("another seed gives other pod names", async () => {
    const a = await run(7);
    const b = await run(8);
    expect(b.pods).not.toEqual(a.pods);
  });
});

/** A StatefulSet scaled up and down beside a Job of 4 completions, 2 at a time: names, bindings and order. */
async function runWorkloads(seed: number): Promise<{ pods: string[]; events: string[]; requests: string[] }> {
  const c = await createSimCluster({ seed, cluster: { nodes: 3, jobPodFailureBackoffMs: 1000 } });
  try {
    await c.client.create(resources.statefulSets, statefulSet("db", 3));
    await c.client.create(resources.jobs, job("batch", { completions: 4, parallelism: 2 }));
    await c.settle({
      maxMs: 300_000,
      until: () =>
        conditionTrue(stored(c, "jobs.batch", "default", "batch"), "Complete") &&
        podsOf(c, "db").filter((p) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"))
          .length === 3,
    });
    await c.client.patchScale(resources.statefulSets, "db", { spec: { replicas: 1 } }, { namespace: "default" });
    await c.settle({ maxMs: 300_000, until: () => podsOf(c, "db").length === 1 });
    return {
      pods: all<Pod>(c, "pods").map((p) => `${p.metadata?.name} ${p.spec?.nodeName} ${p.status?.phase}`),
      events: all<{ reason?: string; message?: string; metadata?: { creationTimestamp?: string } }>(c, "events")
        .map((e) => `${e.metadata?.creationTimestamp} ${e.reason} ${e.message}`)
        .sort(),
      requests: c.requests.map(
        (r) => `${r.receivedAt} ${r.verb} ${r.resource} ${r.namespace ?? ""}/${r.name ?? ""} ${r.code}`,
      ),
    };
  } finally {
    await c.close();
  }
}

describe("determinism of the workload controllers (StatefulSet, Job)", () => {
  it("the same seed gives the same pod names, bindings, events and request order", async () => {
    const a = await runWorkloads(11);
    const b = await runWorkloads(11);
    expect(b.pods).toEqual(a.pods);
    expect(b.events).toEqual(a.events);
    expect(b.requests).toEqual(a.requests);
    expect(a.pods.filter((p) => p.startsWith("db-"))).toEqual([expect.stringMatching(/^db-0 node-\d Running$/)]);
    expect(a.pods.filter((p) => p.startsWith("batch-"))).toHaveLength(4);
  });

  it("another seed gives other Job pod names", async () => {
    const a = await runWorkloads(11);
    const b = await runWorkloads(12);
    expect(b.pods.filter((p) => p.startsWith("batch-"))).not.toEqual(a.pods.filter((p) => p.startsWith("batch-")));
  });
});
