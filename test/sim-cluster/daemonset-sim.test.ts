// The DaemonSet controller in the simulated cluster (in-process, virtual time): behaviours of
// test/e2e/apps/daemon_set.go and pkg/controller/daemon/daemon_controller_test.go that need nodes and running pods.
import type { KubeObject } from "@informer-ts/apimachinery";
import { type DaemonSet, type Node, type Pod, resources } from "@informer-ts/client";
import { DEFAULT_POD_STAGES, type Stage } from "@informer-ts/sim-cluster";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { all, podsOf, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

function daemonSet(
  name: string,
  podSpec: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: "default" },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: "nginx:1" }], ...podSpec },
      },
      ...extra,
    },
  } as unknown as DaemonSet;
}

const dsOf = (name: string) => stored<DaemonSet>(c!, "daemonsets.apps", "default", name);
const live = (name: string) => podsOf(c!, name).filter((p) => p.metadata?.deletionTimestamp == null);
const isReady = (p: Pod) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
const nodeNames = () =>
  all<Node>(c!, "nodes")
    .map((n) => n.metadata?.name ?? "")
    .sort();

/** A cluster of `nodes` nodes running the DaemonSet controller, once its nodes are registered. */
async function cluster(nodes: number, stages?: readonly Stage[]): Promise<SimCluster> {
  const sim = await createSimCluster({
    cluster: { nodes, controllers: ["daemonset"], ...(stages !== undefined && { stages }) },
  });
  await sim.settle({ maxMs: 30_000, until: () => all<Node>(sim, "nodes").length === nodes });
  return sim;
}

/** Settles until each of `nodes` runs exactly one ready pod of the set, no other pod is left, and its status says so. */
async function settleOnNodes(name: string, nodes: readonly string[], image?: string) {
  await c!.settle({
    maxMs: 300_000,
    until: () => {
      const pods = podsOf(c!, name);
      const s = dsOf(name)?.status;
      return (
        pods.length === nodes.length &&
        pods.every((p) => isReady(p) && (image === undefined || p.spec?.containers?.[0]?.image === image)) &&
        JSON.stringify(pods.map((p) => p.spec?.nodeName).sort()) === JSON.stringify([...nodes].sort()) &&
        s?.desiredNumberScheduled === nodes.length &&
        s.numberAvailable === nodes.length &&
        s.updatedNumberScheduled === nodes.length
      );
    },
  });
}

/** A cluster of `nodes` nodes whose set `name` (spec fields `extra`) runs `nginx:1` on every node, settled. */
async function settledSet(
  name: string,
  nodes: number,
  extra: Record<string, unknown>,
  stages?: readonly Stage[],
): Promise<SimCluster> {
  c = await cluster(nodes, stages);
  await c.client.create(resources.daemonSets, daemonSet(name, {}, extra));
  await settleOnNodes(name, nodeNames(), "nginx:1");
  return c;
}

/** Starts a rollout of set `name`: its template's image becomes `nginx:2` (and `metadata` is merged in). */
async function rollOut(name: string, metadata?: Record<string, unknown>): Promise<void> {
  await c!.client.patch(
    resources.daemonSets,
    name,
    {
      spec: {
        template: {
          ...(metadata !== undefined && { metadata }),
          spec: { containers: [{ name: "app", image: "nginx:2" }] },
        },
      },
    },
    { namespace: "default" },
  );
}

/** `RollingUpdate` with `maxSurge` and `maxUnavailable: 0`. */
const surgeStrategy = (maxSurge: number | string) => ({
  updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable: 0 } },
});

describe("DaemonSet in the simulated cluster", () => {
  it("should run and stop simple daemon (test/e2e/apps/daemon_set.go)", async () => {
    c = await cluster(3);
    await c.client.create(resources.daemonSets, daemonSet("daemon-set"));
    await settleOnNodes("daemon-set", nodeNames());
    const s = dsOf("daemon-set")!.status!;
    expect(s).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
      numberMisscheduled: 0,
      updatedNumberScheduled: 3,
    });
    // Bound as upstream binds: a node-name affinity term, the scheduler sets nodeName.
    for (const p of podsOf(c, "daemon-set")) {
      const affinity = p.spec?.affinity as
        | { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: unknown } }
        | undefined;
      expect(affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
        nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [p.spec?.nodeName] }] }],
      });
      expect(p.metadata?.name).toMatch(/^daemon-set-/);
    }
    // Stop a daemon pod, check that the daemon pod is revived.
    const victim = podsOf(c, "daemon-set")[0]!;
    await c.client.delete(resources.pods, victim.metadata!.name!, { namespace: "default", gracePeriodSeconds: 0 });
    await settleOnNodes("daemon-set", nodeNames());
    expect(podsOf(c, "daemon-set").map((p) => p.metadata?.name)).not.toContain(victim.metadata?.name);
    // Deleting the set removes its pods (the garbage collector, foreground or background).
    await c.client.delete(resources.daemonSets, "daemon-set", { namespace: "default" });
    await c.settle({ maxMs: 120_000, until: () => live("daemon-set").length === 0 });
    expect(live("daemon-set")).toEqual([]);
  });

  it("should run and stop complex daemon (test/e2e/apps/daemon_set.go): a node selector follows node labels", async () => {
    c = await cluster(3);
    await c.client.create(resources.daemonSets, daemonSet("complex", { nodeSelector: { "daemonset-color": "blue" } }));
    await c.settle({ maxMs: 30_000, until: () => dsOf("complex")?.status?.observedGeneration === 1 });
    expect(podsOf(c, "complex")).toEqual([]);
    expect(dsOf("complex")?.status?.desiredNumberScheduled).toBe(0);
    const [first] = nodeNames();
    await c.client.patch(resources.nodes, first!, { metadata: { labels: { "daemonset-color": "blue" } } });
    await settleOnNodes("complex", [first!]);
    // Relabelled green, the node loses its daemon pod.
    await c.client.patch(resources.nodes, first!, { metadata: { labels: { "daemonset-color": "green" } } });
    await c.settle({ maxMs: 120_000, until: () => live("complex").length === 0 });
    expect(live("complex")).toEqual([]);
    // The set now selects green nodes: the pod comes back.
    await c.client.patch(
      resources.daemonSets,
      "complex",
      { spec: { template: { spec: { nodeSelector: { "daemonset-color": "green" } } } } },
      { namespace: "default" },
    );
    await settleOnNodes("complex", [first!]);
  });

  it("should update pod when spec was updated and update strategy is RollingUpdate (test/e2e/apps/daemon_set.go)", async () => {
    c = await settledSet("rolling", 4, {
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
    });
    const firstHash = podsOf(c, "rolling")[0]!.metadata?.labels?.["controller-revision-hash"];
    // Watch how many nodes are without an available pod at any time during the update: at most maxUnavailable.
    let worst = 0;
    await rollOut("rolling");
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const ready = new Set(
          live("rolling")
            .filter(isReady)
            .map((p) => p.spec?.nodeName),
        );
        worst = Math.max(worst, nodeNames().filter((n) => !ready.has(n)).length);
        const pods = podsOf(c!, "rolling");
        return pods.length === 4 && pods.every((p) => isReady(p) && p.spec?.containers?.[0]?.image === "nginx:2");
      },
    });
    await settleOnNodes("rolling", nodeNames(), "nginx:2");
    expect(worst).toBe(1);
    const hashes = new Set(podsOf(c, "rolling").map((p) => p.metadata?.labels?.["controller-revision-hash"]));
    expect(hashes.size).toBe(1);
    expect(hashes.has(firstHash)).toBe(false);
    const revisions = all<KubeObject & { revision?: number }>(c, "controllerrevisions.apps");
    expect(revisions.map((r) => r.revision).sort()).toEqual([1, 2]);
    expect(revisions.every((r) => r.metadata?.name?.startsWith("rolling-"))).toBe(true);
  });

  for (const phase of ["Failed", "Succeeded"] as const) {
    it(`should retry creating failed daemon pods (test/e2e/apps/daemon_set.go): a ${phase} daemon pod is deleted and replaced`, async () => {
      c = await cluster(2);
      await c.client.create(resources.daemonSets, daemonSet("retry"));
      await settleOnNodes("retry", nodeNames());
      const victim = podsOf(c, "retry")[0]!;
      await c.client.updateStatus(resources.pods, { ...victim, status: { ...victim.status, phase } } as Pod);
      await c.settle({
        maxMs: 120_000,
        until: () => !podsOf(c!, "retry").some((p) => p.metadata?.name === victim.metadata?.name),
      });
      await settleOnNodes("retry", nodeNames());
      const replacement = podsOf(c, "retry").find((p) => p.spec?.nodeName === victim.spec?.nodeName)!;
      expect(replacement.metadata?.name).not.toBe(victim.metadata?.name);
      const events = all<{ reason?: string; type?: string; message?: string }>(c, "events");
      const reason = phase === "Failed" ? "FailedDaemonPod" : "SucceededDaemonPod";
      expect(events.filter((e) => e.reason === reason)).toEqual([
        expect.objectContaining({
          type: phase === "Failed" ? "Warning" : "Normal",
          message: expect.stringContaining(
            `daemon pod default/${victim.metadata?.name} on node ${victim.spec?.nodeName}`,
          ),
        }),
      ]);
    });
  }

  it("TestTaintedNodeDaemonDoesNotLaunchIntolerantPods / TestNodeDaemonLaunchesToleratePod (daemon_controller_test.go)", async () => {
    c = await cluster(2);
    const [tainted, clean] = nodeNames();
    await c.client.patch(resources.nodes, tainted!, {
      spec: { taints: [{ key: "dedicated", value: "user1", effect: "NoSchedule" }] },
    });
    await c.client.create(resources.daemonSets, daemonSet("intolerant"));
    await c.client.create(
      resources.daemonSets,
      daemonSet("tolerant", { tolerations: [{ key: "dedicated", value: "user1", effect: "NoSchedule" }] }),
    );
    await settleOnNodes("intolerant", [clean!]);
    await settleOnNodes("tolerant", [tainted!, clean!]);
    // A NoExecute taint the pod does not tolerate evicts it (shouldContinueRunning false).
    await c.client.patch(resources.nodes, clean!, {
      spec: { taints: [{ key: "dedicated", value: "user2", effect: "NoExecute" }] },
    });
    await c.settle({ maxMs: 120_000, until: () => live("intolerant").length === 0 });
    expect(live("intolerant")).toEqual([]);
    expect(dsOf("intolerant")?.status?.desiredNumberScheduled).toBe(0);
  });
});

/** The annotation that keeps a pod from ever becoming Ready under {@link NEVER_READY_STAGES}. */
const NEVER_READY = "sim-cluster-test/never-ready";
/** The default stages, but `pod-ready` skips pods with the {@link NEVER_READY} annotation (a failing readiness probe). */
const NEVER_READY_STAGES: Stage[] = DEFAULT_POD_STAGES.map((st) =>
  st.name === "pod-ready"
    ? {
        ...st,
        selector: {
          ...st.selector,
          matchExpressions: [
            ...(st.selector?.matchExpressions ?? []),
            { key: `.metadata.annotations.${NEVER_READY}`, operator: "DoesNotExist" },
          ],
        },
      }
    : st,
);

describe("DaemonSet status writes in the simulated cluster", () => {
  it("a 409 Conflict on the status write is retried once on the set as the server has it (storeDaemonSetStatus), not a reconcile error", async () => {
    c = await cluster(2);
    const id = c.faults.request({ type: "status", code: 409, verbs: ["update"], resource: "daemonsets", count: 1 });
    await c.client.create(resources.daemonSets, daemonSet("daemon-set"));
    await settleOnNodes("daemon-set", nodeNames());
    expect(c.engine.faults.requestFaults.list().find((f) => f.id === id)?.fired).toBe(1);
    expect(c.runtime?.workloads.daemonSets?.controller.status().errors).toBe(0);
  });
});

describe("DaemonSet rolling update with maxSurge in the simulated cluster (update_test.go)", () => {
  /** Per node during a rollout: live pods, and whether one of them is available. */
  function observe(name: string, maxSurge: number) {
    const seen = { mostSurging: 0, mostPerNode: 0, nodesWithoutReadyPod: 0 };
    return {
      seen,
      check: () => {
        const byNode = new Map<string, Pod[]>();
        for (const p of live(name))
          byNode.set(p.spec?.nodeName ?? "", [...(byNode.get(p.spec?.nodeName ?? "") ?? []), p]);
        let surging = 0;
        for (const n of nodeNames()) {
          const pods = byNode.get(n) ?? [];
          if (pods.length > 1) surging++;
          seen.mostPerNode = Math.max(seen.mostPerNode, pods.length);
          if (!pods.some(isReady)) seen.nodesWithoutReadyPod++;
        }
        seen.mostSurging = Math.max(seen.mostSurging, surging);
        return surging <= maxSurge;
      },
    };
  }

  it("TestDaemonSetUpdatesPodsWithMaxSurge: new pods start beside the old ones, at most maxSurge nodes at a time, no node without a ready pod", async () => {
    c = await settledSet("surge", 5, surgeStrategy(2));
    const o = observe("surge", 2);
    await rollOut("surge");
    await c.settle({
      maxMs: 300_000,
      until: () => {
        o.check();
        const pods = podsOf(c!, "surge");
        return pods.length === 5 && pods.every((p) => isReady(p) && p.spec?.containers?.[0]?.image === "nginx:2");
      },
    });
    await settleOnNodes("surge", nodeNames(), "nginx:2");
    expect(o.seen).toEqual({ mostSurging: 2, mostPerNode: 2, nodesWithoutReadyPod: 0 });
    // One old pod deleted per node, each after its node's new pod was ready (no node was ever without one).
    const events = all<{ reason?: string; message?: string; metadata?: { creationTimestamp?: string } }>(c, "events");
    expect(events.filter((e) => e.reason === "SuccessfulDelete")).toHaveLength(5);
  });

  it("with minReadySeconds an old pod goes only once the new pod on its node has been ready that long", async () => {
    c = await settledSet("mrs", 2, { ...surgeStrategy(1), minReadySeconds: 10 });
    await rollOut("mrs");
    // For each node: when its new pod turned ready, and when its old pod was marked for deletion.
    const readyAt = new Map<string, number>();
    const gone = new Map<string, number>();
    await c.settle({
      maxMs: 300_000,
      until: () => {
        for (const p of podsOf(c!, "mrs")) {
          const node = p.spec?.nodeName ?? "";
          // The Ready condition's lastTransitionTime (whole seconds, as metav1.Time), as the controller reads it.
          const since = p.status?.conditions?.find(
            (x) => x.type === "Ready" && x.status === "True",
          )?.lastTransitionTime;
          if (p.spec?.containers?.[0]?.image === "nginx:2" && since !== undefined) readyAt.set(node, Date.parse(since));
          if (p.spec?.containers?.[0]?.image === "nginx:1" && p.metadata?.deletionTimestamp != null && !gone.has(node))
            gone.set(node, c!.clock.now());
        }
        const pods = podsOf(c!, "mrs");
        return pods.length === 2 && pods.every((p) => isReady(p) && p.spec?.containers?.[0]?.image === "nginx:2");
      },
    });
    expect(gone.size).toBe(2);
    for (const [node, t] of gone) expect(t - readyAt.get(node)!).toBeGreaterThanOrEqual(10_000);
  });

  it("maxSurge as a percentage rounds up (30% of 5 nodes: 2 at a time)", async () => {
    c = await settledSet("pct", 5, surgeStrategy("30%"));
    const o = observe("pct", 2);
    await rollOut("pct");
    await c.settle({
      maxMs: 300_000,
      until: () => {
        o.check();
        return podsOf(c!, "pct").every((p) => isReady(p) && p.spec?.containers?.[0]?.image === "nginx:2");
      },
    });
    await settleOnNodes("pct", nodeNames(), "nginx:2");
    expect(o.seen.mostSurging).toBe(2);
    expect(o.seen.nodesWithoutReadyPod).toBe(0);
  });

  it("TestDaemonSetUpdatesWhenNewPodIsNotReady with surge: new pods that never become available stop the rollout at maxSurge nodes, old pods stay", async () => {
    c = await settledSet("stuck", 4, surgeStrategy(1), NEVER_READY_STAGES);
    // The new template's pods never become ready.
    await rollOut("stuck", { annotations: { [NEVER_READY]: "true" } });
    const end = c.clock.now() + 120_000;
    await c.settle({ maxMs: 121_000, until: () => c!.clock.now() >= end });
    const pods = live("stuck");
    const newPods = pods.filter((p) => p.spec?.containers?.[0]?.image === "nginx:2");
    const oldPods = pods.filter((p) => p.spec?.containers?.[0]?.image === "nginx:1");
    expect(newPods).toHaveLength(1);
    expect(newPods.some(isReady)).toBe(false);
    expect(oldPods).toHaveLength(4);
    expect(oldPods.every(isReady)).toBe(true);
  });

  it("an old pod that is not available is replaced at once, beyond maxSurge (TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge)", async () => {
    c = await cluster(3, NEVER_READY_STAGES);
    // The old pods never become ready: none is available.
    const ds = daemonSet("allold", {}, surgeStrategy(1));
    (ds.spec!.template.metadata as { annotations?: Record<string, string> }).annotations = { [NEVER_READY]: "true" };
    await c.client.create(resources.daemonSets, ds);
    await c.settle({
      maxMs: 60_000,
      until: () => live("allold").length === 3 && live("allold").every((p) => p.status?.phase === "Running"),
    });
    await rollOut("allold", { annotations: { [NEVER_READY]: null } });
    // All three nodes get their new pod together, though maxSurge is 1.
    let mostNew = 0;
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const pods = live("allold");
        mostNew = Math.max(mostNew, pods.filter((p) => p.spec?.containers?.[0]?.image === "nginx:2").length);
        return pods.length === 3 && pods.every((p) => isReady(p) && p.spec?.containers?.[0]?.image === "nginx:2");
      },
    });
    expect(mostNew).toBe(3);
  });
});

describe("DaemonSet properties", () => {
  it("whatever the nodes' labels and taints, the set settles with one pod on exactly the eligible nodes", async () => {
    const nodeShape = fc.record({
      blue: fc.boolean(),
      taint: fc.constantFrom(undefined, "NoSchedule", "NoExecute"),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(nodeShape, { minLength: 3, maxLength: 3 }), fc.boolean(), async (shapes, tolerates) => {
        c = await cluster(3);
        const names = nodeNames();
        for (const [i, shape] of shapes.entries()) {
          await c.client.patch(resources.nodes, names[i]!, {
            metadata: { labels: { "daemonset-color": shape.blue ? "blue" : "red" } },
            ...(shape.taint !== undefined && { spec: { taints: [{ key: "dedicated", effect: shape.taint }] } }),
          });
        }
        await c.client.create(
          resources.daemonSets,
          daemonSet("prop", {
            nodeSelector: { "daemonset-color": "blue" },
            ...(tolerates && { tolerations: [{ key: "dedicated", operator: "Exists" }] }),
          }),
        );
        const eligible = names.filter((_, i) => shapes[i]!.blue && (tolerates || shapes[i]!.taint === undefined));
        await c.settle({ maxMs: 60_000, until: () => dsOf("prop")?.status?.observedGeneration === 1 });
        if (eligible.length > 0) await settleOnNodes("prop", eligible);
        // And it stays so: 30 s of virtual time later nothing has moved.
        const sim = c;
        const end = sim.clock.now() + 30_000;
        await sim.settle({ maxMs: 31_000, until: () => sim.clock.now() >= end });
        expect(
          podsOf(c, "prop")
            .map((p) => p.spec?.nodeName)
            .sort(),
        ).toEqual(eligible);
        expect(dsOf("prop")?.status?.desiredNumberScheduled).toBe(eligible.length);
        await c.close();
        c = undefined;
      }),
      { numRuns: 8, seed: 23 },
    );
  });
});
