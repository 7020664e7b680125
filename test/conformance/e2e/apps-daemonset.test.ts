// test/e2e/apps/daemon_set.go (the cases a cluster without container images or logs can run) re-implemented with
// @kubernetes/client-node against the simulator over HTTP with its cluster running (sim-cluster's DaemonSet
// controller, scheduler, kubelet stand-in), as against `pnpm apiserver --cluster`.
import type { AppsV1Api, V1DaemonSet, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let apps: AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2 } });
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
});
