import { type Pod, resources } from "@informer-ts/client";
import { createSimCluster } from "@informer-ts/testing";
import { describe, expect, it } from "vitest";
import { all, available, podsOf, replicaSet } from "./cluster-helpers.js";

interface Trace {
  readonly pods: string[];
  readonly bindings: Record<string, string>;
  readonly events: string[];
  readonly requests: string[];
}

async function run(seed: number): Promise<Trace> {
  const c = await createSimCluster({ seed, cluster: { nodes: 4 } });
  try {
    await c.client.create(resources.replicaSets, replicaSet("web", 8));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 8) });
    await c.client.patchScale(resources.replicaSets, "web", { spec: { replicas: 3 } }, { namespace: "default" });
    // Scaled-down pods are deleted gracefully (terminationGracePeriodSeconds defaults to 30): the kubelet stand-in's
    // pod-delete stage removes them once their deletionTimestamp comes.
    await c.settle({ maxMs: 120_000, until: () => available(c, "web", 3)() && podsOf(c, "web").length === 3 });
    const pods = podsOf(c, "web");
    return {
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

  it("another seed gives other pod names", async () => {
    const a = await run(7);
    const b = await run(8);
    expect(b.pods).not.toEqual(a.pods);
  });
});
