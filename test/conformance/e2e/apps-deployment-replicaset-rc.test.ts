// test/e2e/apps/deployment.go, replica_set.go and rc.go (the cases a cluster without container images, logs or
// quota can run) re-implemented with @kubernetes/client-node against the simulator over HTTP with its cluster
// running (sim-cluster's Deployment, ReplicaSet and ReplicationController controllers, scheduler, kubelet stand-in),
// as against `pnpm apiserver --cluster`, but the simulator and its cluster run 10 times as fast as the
// wall clock (the harness's `clockRate`), pod stages and minReadySeconds too.
import { seededRand } from "@informer-ts/clock";
import type { AppsV1Api, V1Deployment, V1Pod, V1PodTemplateSpec, V1ReplicaSet } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, E2E_STAGES, type E2eCluster, stagesExceptFor, startE2eCluster, watchEvents } from "./harness.js";

/**
 * Upstream's non-existent image (`webserver:404`) never pulls, so its pods never run. The kubelet stand-in pulls no
 * images: a pod annotated `e2e/behaviour: imagePullFails` (the tests here set it with that image) stays
 * `ContainerCreating` — the harness's stages without `pod-running` for it.
 */
const NON_EXISTENT = "webserver:404";
const PULL_FAILS = { "e2e/behaviour": "imagePullFails" };
const STAGES = stagesExceptFor(E2E_STAGES, ["pod-running"], "imagePullFails");

let c: E2eCluster;
let apps: AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2, stages: STAGES }, clockRate: 10 });
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});
afterAll(async () => {
  await c.close();
});

const POLL = { timeout: 20_000, interval: 50 };
const HTTPD = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53";

function template(labels: Record<string, string>, image: string): V1PodTemplateSpec {
  return { metadata: { labels }, spec: { containers: [{ name: "httpd", image }] } };
}

/** `e2edeployment.NewDeployment`. */
function newDeployment(
  name: string,
  replicas: number,
  labels: Record<string, string>,
  image: string,
  strategy: "RollingUpdate" | "Recreate",
): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: template(labels, image),
      strategy: { type: strategy },
    },
  };
}

/** `newRS`. */
function newRS(name: string, replicas: number, labels: Record<string, string>, image: string): V1ReplicaSet {
  return {
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: labels }, template: template(labels, image) },
  };
}

async function pods(ns: string, labelSelector?: string): Promise<V1Pod[]> {
  return (await c.core.listNamespacedPod({ namespace: ns, ...(labelSelector !== undefined && { labelSelector }) }))
    .items;
}

const live = (ps: V1Pod[]) => ps.filter((p) => p.metadata?.deletionTimestamp == null);
const ready = (p: V1Pod) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;

/** `WaitForDeploymentComplete`: every replica updated and available, the newest generation observed. */
async function deploymentComplete(ns: string, name: string): Promise<boolean> {
  return isComplete(await apps.readNamespacedDeployment({ namespace: ns, name }));
}

/** `deploymentutil.DeploymentComplete` with availability: every replica updated and available, the spec observed. */
function isComplete(d: V1Deployment): boolean {
  const want = d.spec?.replicas ?? 1;
  const s = d.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    s.updatedReplicas === want &&
    s.replicas === want &&
    s.availableReplicas === want
  );
}

const controllerOf = (p: V1Pod) => p.metadata?.ownerReferences?.find((r) => r.controller === true);

describe("[sig-apps] Deployment (apps/deployment.go)", () => {
  it("deployment reaping should cascade to its replica sets and pods", async () => {
    const ns = await c.namespace("deploy-reap");
    const labels = { name: "cleanup-pod" };
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: newDeployment("test-new-deployment", 1, labels, HTTPD, "RollingUpdate"),
    });
    await expect.poll(() => deploymentComplete(ns, "test-new-deployment"), POLL).toBe(true);
    await apps.deleteNamespacedDeployment({ namespace: ns, name: "test-new-deployment" });
    await expect.poll(async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items.length, POLL).toBe(0);
    await expect.poll(async () => (await pods(ns)).length, POLL).toBe(0);
  });

  it("RollingUpdateDeployment should delete old pods and create new ones", async () => {
    const ns = await c.namespace("deploy-rolling");
    const labels = { name: "sample-pod", pod: "httpd" };
    const rs = newRS("test-rolling-update-controller", 1, labels, HTTPD);
    rs.metadata = { ...rs.metadata, annotations: { "deployment.kubernetes.io/revision": "3546343826724305832" } };
    await apps.createNamespacedReplicaSet({ namespace: ns, body: rs });
    await expect.poll(async () => live(await pods(ns)).filter(ready).length, POLL).toBe(1);
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: newDeployment("test-rolling-update-deployment", 1, labels, AGNHOST, "RollingUpdate"),
    });
    // The deployment adopts the replica set and goes one revision past it.
    await expect
      .poll(
        async () =>
          (await apps.readNamespacedDeployment({ namespace: ns, name: "test-rolling-update-deployment" })).metadata
            ?.annotations?.["deployment.kubernetes.io/revision"],
        POLL,
      )
      .toBe("3546343826724305833");
    await expect.poll(() => deploymentComplete(ns, "test-rolling-update-deployment"), POLL).toBe(true);
    const all = (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    const old = all.filter((x) => x.metadata?.name === "test-rolling-update-controller");
    expect(old).toHaveLength(1);
    expect(old[0]?.spec?.replicas).toBe(0);
    expect(old[0]?.metadata?.ownerReferences?.[0]?.name).toBe("test-rolling-update-deployment");
    await expect
      .poll(async () => live(await pods(ns)).map((p) => p.spec?.containers[0]?.image), POLL)
      .toEqual([AGNHOST]);
  });

  it("RecreateDeployment should delete old pods and create new ones", async () => {
    const ns = await c.namespace("deploy-recreate");
    const labels = { name: "sample-pod-3" };
    const name = "test-recreate-deployment";
    await apps.createNamespacedDeployment({ namespace: ns, body: newDeployment(name, 1, labels, AGNHOST, "Recreate") });
    await expect.poll(() => deploymentComplete(ns, name), POLL).toBe(true);
    // watchRecreateDeployment: every event of the Deployment until it completes with the new template; none may show
    // updated replicas beside old ones (new pods running alongside old pods).
    const events = await watchEvents(
      c,
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      { fieldSelector: `metadata.name=${name}` },
      (evs) => {
        const d = evs[evs.length - 1]?.object as V1Deployment | undefined;
        return d !== undefined && d.spec?.template.spec?.containers[0]?.image === HTTPD && isComplete(d);
      },
      async () => {
        await apps.patchNamespacedDeployment(
          {
            namespace: ns,
            name,
            body: { spec: { template: { spec: { containers: [{ name: "httpd", image: HTTPD }] } } } },
          },
          c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
        );
      },
    );
    for (const { object } of events) {
      const st = (object as V1Deployment).status ?? {};
      if ((st.updatedReplicas ?? 0) > 0)
        expect(st.replicas, "new pods running alongside old pods").toBe(st.updatedReplicas);
    }
    expect(isComplete(events[events.length - 1]?.object as V1Deployment), "the recreate rollout never completed").toBe(
      true,
    );
    expect(new Set((await pods(ns)).map((p) => p.spec?.containers[0]?.image))).toEqual(new Set([HTTPD]));
  });

  it("deployment should delete old replica sets", async () => {
    const ns = await c.namespace("deploy-cleanup");
    const labels = { name: "cleanup-pod" };
    await apps.createNamespacedReplicaSet({ namespace: ns, body: newRS("test-cleanup-controller", 1, labels, HTTPD) });
    await expect.poll(async () => live(await pods(ns)).filter(ready).length, POLL).toBe(1);
    const d = newDeployment("test-cleanup-deployment", 1, labels, AGNHOST, "RollingUpdate");
    d.spec = { ...d.spec!, revisionHistoryLimit: 0 };
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    await expect.poll(() => deploymentComplete(ns, "test-cleanup-deployment"), POLL).toBe(true);
    // waitForDeploymentOldRSsNum(0): only the new replica set is left.
    await expect
      .poll(
        async () =>
          (await apps.listNamespacedReplicaSet({ namespace: ns })).items.map(
            (x) => x.spec?.template?.spec?.containers[0]?.image,
          ),
        POLL,
      )
      .toEqual([AGNHOST]);
  });
});

describe("[sig-apps] Deployment (apps/deployment.go): rollover", () => {
  it("deployment should support rollover", async () => {
    const ns = await c.namespace("deployment");
    const podName = "rollover-pod";
    const rsName = "test-rollover-controller";
    await apps.createNamespacedReplicaSet({
      namespace: ns,
      body: newRS(rsName, 1, { name: podName, pod: "httpd" }, HTTPD),
    });
    // Wait for replica set to become ready before adopting it.
    await expect
      .poll(
        async () => (await apps.readNamespacedReplicaSet({ namespace: ns, name: rsName })).status?.readyReplicas,
        POLL,
      )
      .toBe(1);
    // A Deployment whose image does not exist, so that its rollout does not finish.
    const name = "test-rollover-deployment";
    const d = newDeployment(
      name,
      1,
      { name: podName },
      "gcr.io/google_samples/gb-redisslave:nonexistent",
      "RollingUpdate",
    );
    d.spec!.template.metadata = { ...d.spec!.template.metadata, annotations: PULL_FAILS };
    d.spec!.template.spec!.containers[0]!.name = "redis-slave";
    d.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };
    d.spec!.minReadySeconds = 10;
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    await expect
      .poll(
        async () => (await apps.readNamespacedDeployment({ namespace: ns, name })).status?.updatedReplicas ?? 0,
        POLL,
      )
      .toBeGreaterThanOrEqual(1);
    const rsList = async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    const revisionOf = (rs: V1ReplicaSet | undefined) =>
      rs?.metadata?.annotations?.["deployment.kubernetes.io/revision"];
    const newest = async (image: string) =>
      (await rsList()).find((rs) => rs.spec?.template?.spec?.containers[0]?.image === image);
    const first = await newest("gcr.io/google_samples/gb-redisslave:nonexistent");
    expect(revisionOf(first)).toBe("1");
    // Ensure that both replica sets have 1 created replica (the old one adopted).
    const replicas = async (rsn: string) => {
      const rs = await apps.readNamespacedReplicaSet({ namespace: ns, name: rsn });
      return [rs.spec?.replicas, rs.status?.replicas];
    };
    await expect.poll(() => replicas(rsName), POLL).toEqual([1, 1]);
    await expect.poll(() => replicas(first?.metadata?.name ?? ""), POLL).toEqual([1, 1]);
    expect(
      (await apps.readNamespacedReplicaSet({ namespace: ns, name: rsName })).metadata?.ownerReferences?.[0]?.name,
    ).toBe(name);
    // Rollover: the stuck rollout is replaced by agnhost pods (an image that exists: no pull-failure annotation).
    const cur = await apps.readNamespacedDeployment({ namespace: ns, name });
    const tpl = cur.spec!.template;
    cur.spec!.template = {
      ...tpl,
      metadata: { ...tpl.metadata, annotations: {} },
      spec: { ...tpl.spec!, containers: [{ ...tpl.spec!.containers[0]!, name: "agnhost", image: AGNHOST }] },
    };
    const updated = await apps.replaceNamespacedDeployment({ namespace: ns, name, body: cur });
    await expect
      .poll(async () => (await apps.readNamespacedDeployment({ namespace: ns, name })).status?.observedGeneration, POLL)
      .toBeGreaterThanOrEqual(updated.metadata?.generation ?? 0);
    await expect.poll(async () => revisionOf(await newest(AGNHOST)), POLL).toBe("2");
    // minReadySeconds 10: the new pods count as available 10 s (of the cluster's clock: 1 wall second) after they
    // are ready.
    await expect.poll(() => deploymentComplete(ns, name), POLL).toBe(true);
    // Ensure that both old replica sets have no replicas.
    await expect.poll(() => replicas(rsName), POLL).toEqual([0, 0]);
    await expect.poll(() => replicas(first?.metadata?.name ?? ""), POLL).toEqual([0, 0]);
  });
});

describe("[sig-apps] Deployment (apps/deployment.go): iterative rollouts", () => {
  it("iterative rollouts should eventually progress", async () => {
    const ns = await c.namespace("deployment");
    const labels = { name: "httpd" };
    const name = "webserver";
    const d = newDeployment(name, 6, labels, HTTPD, "RollingUpdate");
    d.spec!.progressDeadlineSeconds = 300;
    d.spec!.revisionHistoryLimit = 2;
    d.spec!.template.spec!.terminationGracePeriodSeconds = 0;
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    // Upstream draws from math/rand; seeded generators keep the run repeatable here. Which pods a "delete pods"
    // step picks draws from its own generator: how many pods exist then depends on timing, and must not shift the
    // sequence of steps.
    const steps = seededRand(0x5eed);
    const rand = () => steps.float();
    const picks = seededRand(0x9e37);
    const podRand = () => picks.float();
    /** `UpdateDeploymentWithRetries`. */
    const update = async (change: (d: V1Deployment) => void): Promise<V1Deployment> => {
      for (let attempt = 0; ; attempt++) {
        const cur = await apps.readNamespacedDeployment({ namespace: ns, name });
        change(cur);
        try {
          return await apps.replaceNamespacedDeployment({ namespace: ns, name, body: cur });
        } catch (err) {
          if (attempt > 20 || codeOf(err) !== 409) throw err;
        }
      }
    };
    // A step's scale draw is made once, before its update: `update` reruns its change on a 409, and a draw inside it
    // would make the sequence depend on how often the controllers' writes conflict with the test's.
    const randomScale = (r: number) => (u: V1Deployment) => {
      if (r < 0.3) u.spec!.replicas = (u.spec!.replicas ?? 1) + 1;
      else if (r < 0.6 && (u.spec!.replicas ?? 1) > 1) u.spec!.replicas = (u.spec!.replicas ?? 1) - 1;
    };
    const actions: string[] = [];
    let deployment = await apps.readNamespacedDeployment({ namespace: ns, name });
    for (let i = 0; i < 20; i++) {
      // Upstream sleeps up to i seconds between steps; here up to i/2 s of the cluster's clock (10 times as fast as
      // the wall clock), so 20 steps stay within a few wall seconds.
      const r = rand();
      if (r < 0.6) await c.clock.sleep(i * r * 500);
      const n = rand();
      if (n < 0.2) {
        actions.push("rollout");
        const scale = randomScale(rand());
        deployment = await update((u) => {
          const container = u.spec!.template.spec!.containers[0]!;
          container.env = [...(container.env ?? []), { name: `A${i}`, value: String(i) }];
          scale(u);
        });
      } else if (n < 0.4) {
        actions.push("rollback");
        deployment = await update((u) => {
          u.metadata!.annotations = { ...u.metadata!.annotations, "deprecated.deployment.rollback.to": "0" };
        });
      } else if (n < 0.6) {
        actions.push("scale");
        deployment = await update(randomScale(rand()));
      } else if (n < 0.8) {
        const paused = deployment.spec?.paused === true;
        actions.push(paused ? "resume" : "pause");
        const scale = randomScale(rand());
        deployment = await update((u) => {
          u.spec!.paused = !paused;
          scale(u);
        });
      } else {
        actions.push("delete pods");
        for (const p of await pods(ns, "name=httpd")) {
          if (podRand() < 0.5) continue;
          try {
            await c.core.deleteNamespacedPod({ namespace: ns, name: p.metadata!.name! });
          } catch (err) {
            if (codeOf(err) !== 404) throw err;
          }
        }
      }
    }
    // Every kind of step was taken (the seed decides which).
    expect(new Set(actions)).toEqual(new Set(["rollout", "rollback", "scale", "pause", "resume", "delete pods"]));
    deployment = await apps.readNamespacedDeployment({ namespace: ns, name });
    if (deployment.spec?.paused === true) {
      deployment = await update((u) => {
        u.spec!.paused = false;
      });
    }
    const generation = deployment.metadata?.generation ?? 0;
    // waitForObservedDeployment, WaitForDeploymentComplete.
    await expect
      .poll(async () => {
        const cur = await apps.readNamespacedDeployment({ namespace: ns, name });
        return (cur.status?.observedGeneration ?? 0) >= generation && isComplete(cur);
      }, POLL)
      .toBe(true);
    // waitForDeploymentWithCondition: Progressing with NewReplicaSetAvailable.
    await expect
      .poll(async () => {
        const cur = await apps.readNamespacedDeployment({ namespace: ns, name });
        return cur.status?.conditions?.find((x) => x.type === "Progressing")?.reason;
      }, POLL)
      .toBe("NewReplicaSetAvailable");
    // The rollback requests were handled: none is left on the Deployment.
    const last = await apps.readNamespacedDeployment({ namespace: ns, name });
    expect(last.metadata?.annotations?.["deprecated.deployment.rollback.to"]).toBeUndefined();
  });
});

describe("[sig-apps] Deployment (apps/deployment.go): proportional scaling", () => {
  it("deployment should support proportional scaling", async () => {
    const ns = await c.namespace("deployment");
    const labels = { name: "webserver" };
    const name = "webserver-deployment";
    const d = newDeployment(name, 10, labels, HTTPD, "RollingUpdate");
    d.spec!.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    await expect.poll(() => deploymentComplete(ns, name), POLL).toBe(true);
    const rsOf = async () =>
      (await apps.listNamespacedReplicaSet({ namespace: ns })).items.filter(
        (rs) => rs.metadata?.ownerReferences?.[0]?.name === name,
      );
    const [first] = await rsOf();
    const firstName = first?.metadata?.name ?? "";
    // Update the deployment with a non-existent image so that the new replica set will be blocked.
    const cur = await apps.readNamespacedDeployment({ namespace: ns, name });
    const tpl = cur.spec!.template;
    cur.spec!.template = {
      ...tpl,
      metadata: { ...tpl.metadata, annotations: { ...tpl.metadata?.annotations, ...PULL_FAILS } },
      spec: { ...tpl.spec!, containers: [{ ...tpl.spec!.containers[0]!, image: NON_EXISTENT }] },
    };
    await apps.replaceNamespacedDeployment({ namespace: ns, name, body: cur });
    const byName = async () => new Map((await rsOf()).map((rs) => [rs.metadata?.name ?? "", rs]));
    // The first rollout's ReplicaSet keeps replicas − maxUnavailable = 8, available and as spec.replicas.
    await expect
      .poll(async () => {
        const rs = (await byName()).get(firstName);
        return [rs?.spec?.replicas, rs?.status?.availableReplicas];
      }, POLL)
      .toEqual([8, 8]);
    // The second gets replicas + maxSurge − 8 = 5, none available.
    const second = async () => [...(await byName()).values()].find((rs) => rs.metadata?.name !== firstName);
    await expect.poll(async () => (await second())?.spec?.replicas, POLL).toBe(5);
    expect((await second())?.status?.availableReplicas ?? 0).toBe(0);
    // Scale the deployment to 30 replicas: 20 more, shared 8:5 — 8 + round(20·8/13) = 20 and 5 + round(20·5/13) = 13.
    await expect
      .poll(async () => {
        try {
          const d2 = await apps.readNamespacedDeployment({ namespace: ns, name });
          d2.spec!.replicas = 30;
          await apps.replaceNamespacedDeployment({ namespace: ns, name, body: d2 });
          return true;
        } catch (err) {
          if ((err as { code?: number }).code === 409) return false;
          throw err;
        }
      }, POLL)
      .toBe(true);
    await expect.poll(async () => (await byName()).get(firstName)?.spec?.replicas, POLL).toBe(20);
    await expect.poll(async () => (await second())?.spec?.replicas, POLL).toBe(13);
  });
});

describe("[sig-apps] ReplicaSet (apps/replica_set.go)", () => {
  it("should adopt matching pods on creation and release no longer matching pods", async () => {
    const ns = await c.namespace("rs-adopt");
    const labels = { name: "pod-adoption-release" };
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "pod-adoption-release", labels }, spec: template(labels, HTTPD).spec! },
    });
    await expect.poll(async () => (await pods(ns)).filter(ready).length, POLL).toBe(1);
    await apps.createNamespacedReplicaSet({ namespace: ns, body: newRS("pod-adoption-release", 1, labels, HTTPD) });
    // The orphan is adopted: it gets the replica set as its controller and no second pod is made.
    await expect
      .poll(async () => (await pods(ns)).map((p) => [p.metadata?.name, controllerOf(p)?.name]), POLL)
      .toEqual([["pod-adoption-release", "pod-adoption-release"]]);
    // Relabelled, it is released, and the replica set makes a new pod in its place.
    await c.core.patchNamespacedPod(
      { namespace: ns, name: "pod-adoption-release", body: { metadata: { labels: { name: "not-matching-name" } } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await expect
      .poll(
        async () =>
          controllerOf(await c.core.readNamespacedPod({ namespace: ns, name: "pod-adoption-release" })) === undefined,
        POLL,
      )
      .toBe(true);
    await expect.poll(async () => live(await pods(ns, "name=pod-adoption-release")).length, POLL).toBe(1);
  });

  it("should list and delete a collection of ReplicaSets", async () => {
    const ns = await c.namespace("rs-collection");
    const rs = newRS("test-rs", 1, { name: "sample-pod", e2e: "rs-collection" }, HTTPD);
    rs.metadata = { ...rs.metadata, labels: { ...rs.metadata?.labels, "test-rs": "set" } };
    await apps.createNamespacedReplicaSet({ namespace: ns, body: rs });
    await expect
      .poll(
        async () => (await apps.readNamespacedReplicaSet({ namespace: ns, name: "test-rs" })).status?.readyReplicas,
        POLL,
      )
      .toBe(1);
    const listed = await apps.listReplicaSetForAllNamespaces({ labelSelector: "test-rs=set" });
    expect(listed.items.map((x) => x.metadata?.name)).toEqual(["test-rs"]);
    await apps.deleteCollectionNamespacedReplicaSet({ namespace: ns, labelSelector: "test-rs=set" });
    await expect
      .poll(
        async () => (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: "test-rs=set" })).items.length,
        POLL,
      )
      .toBe(0);
  });
});

describe("[sig-apps] ReplicationController (apps/rc.go)", () => {
  it("should adopt matching pods on creation", async () => {
    const ns = await c.namespace("rc-adopt");
    const labels = { name: "pod-adoption" };
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "pod-adoption", labels }, spec: template(labels, HTTPD).spec! },
    });
    await expect.poll(async () => (await pods(ns)).filter(ready).length, POLL).toBe(1);
    await c.core.createNamespacedReplicationController({
      namespace: ns,
      body: {
        metadata: { name: "pod-adoption" },
        spec: { replicas: 1, selector: labels, template: template(labels, HTTPD) },
      },
    });
    await expect
      .poll(
        async () => (await pods(ns)).map((p) => [p.metadata?.name, controllerOf(p)?.kind, controllerOf(p)?.name]),
        POLL,
      )
      .toEqual([["pod-adoption", "ReplicationController", "pod-adoption"]]);
  });

  it("should release no longer matching pods", async () => {
    const ns = await c.namespace("rc-release");
    const labels = { name: "pod-release" };
    await c.core.createNamespacedReplicationController({
      namespace: ns,
      body: {
        metadata: { name: "pod-release" },
        spec: { replicas: 1, selector: labels, template: template(labels, HTTPD) },
      },
    });
    await expect.poll(async () => live(await pods(ns)).filter(ready).length, POLL).toBe(1);
    const [pod] = await pods(ns);
    const name = pod?.metadata?.name ?? "";
    await c.core.patchNamespacedPod(
      { namespace: ns, name, body: { metadata: { labels: { name: "not-matching-name" } } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await expect
      .poll(async () => controllerOf(await c.core.readNamespacedPod({ namespace: ns, name })) === undefined, POLL)
      .toBe(true);
    await expect.poll(async () => live(await pods(ns, "name=pod-release")).length, POLL).toBe(1);
  });
});

describe("[sig-apps] Deployment (apps/deployment.go): controllerRef", () => {
  it("test Deployment ReplicaSet orphaning and adoption regarding controllerRef", async () => {
    const ns = await c.namespace("deploy-ref");
    const labels = { name: "httpd" };
    const rsOf = async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: newDeployment("test-orphan-deployment", 1, labels, HTTPD, "RollingUpdate"),
    });
    await expect.poll(() => deploymentComplete(ns, "test-orphan-deployment"), POLL).toBe(true);
    const [rs] = await rsOf();
    const first = await apps.readNamespacedDeployment({ namespace: ns, name: "test-orphan-deployment" });
    expect(rs?.metadata?.ownerReferences?.[0]?.uid).toBe(first.metadata?.uid);
    // Deleting the Deployment and orphaning its ReplicaSet: the garbage collector removes the owner reference.
    await apps.deleteNamespacedDeployment({
      namespace: ns,
      name: "test-orphan-deployment",
      propagationPolicy: "Orphan",
    });
    await expect
      .poll(async () => (await rsOf()).map((x) => [x.metadata?.name, x.metadata?.ownerReferences?.length ?? 0]), POLL)
      .toEqual([[rs?.metadata?.name, 0]]);
    // A new Deployment with the same selector and template adopts it, and makes no other ReplicaSet.
    const adopter = await apps.createNamespacedDeployment({
      namespace: ns,
      body: newDeployment("test-adopt-deployment", 1, labels, HTTPD, "RollingUpdate"),
    });
    await expect.poll(() => deploymentComplete(ns, "test-adopt-deployment"), POLL).toBe(true);
    await expect
      .poll(async () => (await rsOf()).map((x) => [x.metadata?.name, x.metadata?.ownerReferences?.[0]?.uid]), POLL)
      .toEqual([[rs?.metadata?.name, adopter.metadata?.uid]]);
  });
});
