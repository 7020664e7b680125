// test/e2e/apps/daemon_set.go (the cases a cluster without container images or logs can run) re-implemented with
// @kubernetes/client-node against the simulator over HTTP with its cluster running (sim-cluster's DaemonSet
// controller, scheduler, kubelet stand-in), as against `pnpm apiserver --cluster`, but the simulator and
// its cluster run 10 times as fast as the wall clock (the harness's `clockRate`), pod stages and minReadySeconds too.
import type { AppsV1Api, V1DaemonSet, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type E2eCluster, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
let apps: AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2 }, clockRate: 10 });
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
  // The framework's wait for schedulable nodes: the node pool registers its nodes once the cluster runs.
  await vi.waitFor(
    async () => {
      const n = (await c.core.listNode()).items.length;
      if (n < 2) throw new Error(`e2e: ${n} of the cluster's 2 nodes registered within 20 s`);
    },
    { timeout: 20_000, interval: 50 },
  );
});
afterAll(async () => {
  await c.close();
});

const POLL = { timeout: 20_000, interval: 50 };
const HTTPD = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53";
const NAME_LABEL = "daemonset-name";
const COLOR_LABEL = "daemonset-color";

/** `newDaemonSet`. */
function newDaemonSet(name: string, image: string, labels: Record<string, string>): V1DaemonSet {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "app", image, ports: [{ containerPort: 9376 }] }] },
      },
    },
  };
}

async function daemonPods(ns: string, name: string): Promise<V1Pod[]> {
  return (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `${NAME_LABEL}=${name}` })).items.filter(
    (p) => p.metadata?.deletionTimestamp == null,
  );
}

const ready = (p: V1Pod) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;

async function schedulableNodes(): Promise<string[]> {
  return (await c.core.listNode()).items.map((n) => n.metadata?.name ?? "").sort();
}

/** `checkRunningOnAllNodes` / `checkDaemonPodOnNodes`: one ready pod on each of `nodes`, no others. */
async function runningOn(ns: string, name: string, nodes: readonly string[], image?: string): Promise<boolean> {
  const pods = await daemonPods(ns, name);
  const on = pods
    .filter((p) => ready(p) && (image === undefined || p.spec?.containers[0]?.image === image))
    .map((p) => p.spec?.nodeName ?? "")
    .sort();
  return pods.length === nodes.length && JSON.stringify(on) === JSON.stringify([...nodes].sort());
}

/** `checkDaemonStatus`: desired = current = ready. */
async function statusSettled(ns: string, name: string): Promise<boolean> {
  const s = (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status;
  return (
    s !== undefined &&
    s.desiredNumberScheduled === s.currentNumberScheduled &&
    s.desiredNumberScheduled === s.numberReady &&
    s.desiredNumberScheduled > 0
  );
}

async function setNodeColor(node: string, color: string | null): Promise<void> {
  await c.core.patchNode(
    { name: node, body: { metadata: { labels: { [COLOR_LABEL]: color } } } },
    c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
  );
}

describe("[sig-apps] Daemon set [Serial] (apps/daemon_set.go)", () => {
  it("should run and stop simple daemon", async () => {
    const ns = await c.namespace("daemonsets-simple");
    const name = "daemon-set";
    await apps.createNamespacedDaemonSet({ namespace: ns, body: newDaemonSet(name, HTTPD, { [NAME_LABEL]: name }) });
    const nodes = await schedulableNodes();
    await expect.poll(() => runningOn(ns, name, nodes), POLL).toBe(true);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
    // Stop a daemon pod, check that the daemon pod is revived.
    const [victim] = await daemonPods(ns, name);
    await c.core.deleteNamespacedPod({ namespace: ns, name: victim!.metadata!.name!, gracePeriodSeconds: 0 });
    await expect
      .poll(async () => (await daemonPods(ns, name)).some((p) => p.metadata?.name === victim!.metadata?.name), POLL)
      .toBe(false);
    await expect.poll(() => runningOn(ns, name, nodes), POLL).toBe(true);
    // The set's deletion takes its pods along.
    await apps.deleteNamespacedDaemonSet({ namespace: ns, name });
    await expect.poll(async () => (await daemonPods(ns, name)).length, POLL).toBe(0);
  });

  it("should run and stop complex daemon", async () => {
    const ns = await c.namespace("daemonsets-complex");
    const name = "daemon-set";
    const ds = newDaemonSet(name, HTTPD, { [NAME_LABEL]: name });
    ds.spec!.template.spec!.nodeSelector = { [COLOR_LABEL]: "blue" };
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    // Initially, daemon pods should not be running on any nodes.
    await expect
      .poll(async () => (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status?.observedGeneration, POLL)
      .toBe(1);
    expect(await daemonPods(ns, name)).toEqual([]);
    // Change node label to blue, check that daemon pod is launched.
    const [node] = await schedulableNodes();
    await setNodeColor(node!, "blue");
    await expect.poll(() => runningOn(ns, name, [node!]), POLL).toBe(true);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
    // Update the node label to green, and wait for daemons to be unscheduled.
    await setNodeColor(node!, "green");
    await expect.poll(async () => (await daemonPods(ns, name)).length, POLL).toBe(0);
    // Update DaemonSet node selector to green, and change its update strategy to RollingUpdate.
    await apps.patchNamespacedDaemonSet(
      {
        namespace: ns,
        name,
        body: {
          spec: {
            template: { spec: { nodeSelector: { [COLOR_LABEL]: "green" } } },
            updateStrategy: { type: "RollingUpdate" },
          },
        },
      },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await expect.poll(() => runningOn(ns, name, [node!]), POLL).toBe(true);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
    await setNodeColor(node!, null);
  });

  it("should run and stop complex daemon with node affinity", async () => {
    const ns = await c.namespace("daemonsets-affinity");
    const name = "daemon-set";
    const ds = newDaemonSet(name, HTTPD, { [NAME_LABEL]: name });
    ds.spec!.template.spec!.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: COLOR_LABEL, operator: "In", values: ["blue"] }] }],
        },
      },
    };
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    // Initially, daemon pods should not be running on any nodes.
    await expect
      .poll(async () => (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status?.observedGeneration, POLL)
      .toBe(1);
    expect(await daemonPods(ns, name)).toEqual([]);
    // Change node label to blue, check that daemon pod is launched.
    const [node] = await schedulableNodes();
    await setNodeColor(node!, "blue");
    await expect.poll(() => runningOn(ns, name, [node!]), POLL).toBe(true);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
    // Remove the node label and wait for daemons to be unscheduled.
    await setNodeColor(node!, null);
    await expect.poll(async () => (await daemonPods(ns, name)).length, POLL).toBe(0);
  });

  it("should not update pod when spec was updated and update strategy is OnDelete", async () => {
    const ns = await c.namespace("daemonsets-ondelete");
    const name = "daemon-set";
    const ds = newDaemonSet(name, HTTPD, { [NAME_LABEL]: name });
    ds.spec!.updateStrategy = { type: "OnDelete" };
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    const nodes = await schedulableNodes();
    await expect.poll(() => runningOn(ns, name, nodes, HTTPD), POLL).toBe(true);
    // checkDaemonSetPodsLabels and the history: one revision, every pod of it.
    const firstHash = (await daemonPods(ns, name))[0]?.metadata?.labels?.["controller-revision-hash"];
    expect((await apps.listNamespacedControllerRevision({ namespace: ns })).items).toHaveLength(1);
    await apps.patchNamespacedDaemonSet(
      {
        namespace: ns,
        name,
        body: { spec: { template: { spec: { containers: [{ name: "app", image: AGNHOST }] } } } },
      },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    // The new template is recorded (a second revision, observed by the controller), but no pod is replaced.
    await expect
      .poll(async () => {
        const cur = await apps.readNamespacedDaemonSet({ namespace: ns, name });
        const revs = (await apps.listNamespacedControllerRevision({ namespace: ns })).items.length;
        return [revs, (cur.status?.observedGeneration ?? 0) >= (cur.metadata?.generation ?? 1)];
      }, POLL)
      .toEqual([2, true]);
    expect(await runningOn(ns, name, nodes, HTTPD)).toBe(true);
    const pods = await daemonPods(ns, name);
    expect(new Set(pods.map((p) => p.metadata?.labels?.["controller-revision-hash"]))).toEqual(new Set([firstHash]));
    expect((await apps.readNamespacedDaemonSet({ namespace: ns, name })).status?.updatedNumberScheduled ?? 0).toBe(0);
  });

  it("should update pod when spec was updated and update strategy is RollingUpdate", async () => {
    const ns = await c.namespace("daemonsets-rolling");
    const name = "daemon-set";
    const ds = newDaemonSet(name, HTTPD, { [NAME_LABEL]: name });
    ds.spec!.updateStrategy = { type: "RollingUpdate" };
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    const nodes = await schedulableNodes();
    await expect.poll(() => runningOn(ns, name, nodes, HTTPD), POLL).toBe(true);
    const first = await apps.readNamespacedDaemonSet({ namespace: ns, name });
    const firstHash = (await daemonPods(ns, name))[0]?.metadata?.labels?.["controller-revision-hash"];
    expect(firstHash).toMatch(/^[a-z0-9]+$/);
    // Update daemon pods image.
    await apps.patchNamespacedDaemonSet(
      {
        namespace: ns,
        name,
        body: { spec: { template: { spec: { containers: [{ name: "app", image: AGNHOST }] } } } },
      },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    // Check that daemon pods images are updated, and that they are available again.
    await expect.poll(() => runningOn(ns, name, nodes, AGNHOST), POLL).toBe(true);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
    const pods = await daemonPods(ns, name);
    const hashes = new Set(pods.map((p) => p.metadata?.labels?.["controller-revision-hash"]));
    expect(hashes.size).toBe(1);
    expect(hashes.has(firstHash)).toBe(false);
    const after = await apps.readNamespacedDaemonSet({ namespace: ns, name });
    expect(after.metadata?.generation).toBeGreaterThan(first.metadata?.generation ?? 0);
    await expect
      .poll(
        async () => (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status?.updatedNumberScheduled,
        POLL,
      )
      .toBe(nodes.length);
    // One ControllerRevision per template the set had.
    const revisions = await apps.listNamespacedControllerRevision({ namespace: ns });
    expect(revisions.items.map((r) => r.revision).sort()).toEqual([1, 2]);
  });

  it("should surge pods onto nodes when spec was updated and update strategy is RollingUpdate", async () => {
    const ns = await c.namespace("daemonsets-surge");
    const name = "daemon-set";
    const ds = newDaemonSet(name, AGNHOST, { [NAME_LABEL]: name });
    ds.spec!.template.spec!.containers[0]!.env = [{ name: "VERSION", value: "1" }];
    // A simple surge strategy, as upstream: no unavailability, 30% surge (1 of 2 nodes), pods ready for 10 s (of the
    // cluster's clock: 1 wall second) before the old pod goes.
    ds.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "30%" } };
    ds.spec!.minReadySeconds = 10;
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    const nodes = await schedulableNodes();
    await expect.poll(() => runningOn(ns, name, nodes), POLL).toBe(true);
    // The old pods available (ready for minReadySeconds): otherwise each is replaced at once, surge or not.
    await expect
      .poll(async () => (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status?.numberAvailable, POLL)
      .toBe(nodes.length);
    const maxSurge = Math.ceil(nodes.length * 0.3);
    // Check that daemon pods surge and the invariants hold at every pod event during the rollout.
    const pods = new Map<string, V1Pod>();
    const violations: string[] = [];
    let mostSurging = 0;
    const version = (p: V1Pod) => p.spec?.containers[0]?.env?.[0]?.value;
    // `podutil.IsPodAvailable` with minReadySeconds 10, now (on the cluster's clock, as its timestamps).
    const available = (p: V1Pod) => {
      const since = p.status?.conditions?.find((x) => x.type === "Ready" && x.status === "True")?.lastTransitionTime;
      return since !== undefined && new Date(since).getTime() + 10_000 <= c.clock.now();
    };
    const check = () => {
      const byNode = new Map<string, V1Pod[]>();
      for (const p of pods.values()) {
        if (p.metadata?.deletionTimestamp != null || (p.spec?.nodeName ?? "") === "") continue;
        byNode.set(p.spec!.nodeName!, [...(byNode.get(p.spec!.nodeName!) ?? []), p]);
      }
      let surging = 0;
      let newUnavailable = 0;
      for (const node of nodes) {
        const live = byNode.get(node) ?? [];
        const newOnes = live.filter((p) => version(p) === "2");
        if (newOnes.length > 1) violations.push(`node ${node} has more than one new pod`);
        if (live.length > 2) violations.push(`node ${node} has ${live.length} pods`);
        if (live.length === 2) surging++;
        newUnavailable += newOnes.filter((p) => !available(p)).length;
        // maxUnavailable 0: every node keeps a ready pod throughout.
        if (!live.some(ready)) violations.push(`node ${node} has no ready pod`);
      }
      mostSurging = Math.max(mostSurging, surging);
      // Upstream's invariant: no more new pods unavailable at once than maxSurge.
      if (newUnavailable > maxSurge)
        violations.push(`observed ${newUnavailable} new unavailable pods greater than maxSurge count ${maxSurge}`);
      const all = [...byNode.values()].flat();
      return all.length === nodes.length && all.every((p) => version(p) === "2" && ready(p));
    };
    const initial = await c.core.listNamespacedPod({ namespace: ns });
    await watchEvents(
      c,
      `/api/v1/namespaces/${ns}/pods`,
      { resourceVersion: initial.metadata?.resourceVersion },
      (events) => {
        const last = events[events.length - 1]!;
        const p = last.object as V1Pod;
        if (last.type === "DELETED") pods.delete(p.metadata?.uid ?? "");
        else pods.set(p.metadata?.uid ?? "", p);
        return check();
      },
      async () => {
        for (const p of initial.items) pods.set(p.metadata?.uid ?? "", p);
        // Update daemon pods environment var.
        await apps.patchNamespacedDaemonSet(
          {
            namespace: ns,
            name,
            body: {
              spec: { template: { spec: { containers: [{ name: "app", env: [{ name: "VERSION", value: "2" }] }] } } },
            },
          },
          c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
        );
      },
      30_000,
    );
    expect(violations).toEqual([]);
    expect(check()).toBe(true);
    // The new pods started beside the old ones: some node ran both.
    expect(mostSurging).toBeGreaterThanOrEqual(1);
    await expect.poll(() => statusSettled(ns, name), POLL).toBe(true);
  });
});
