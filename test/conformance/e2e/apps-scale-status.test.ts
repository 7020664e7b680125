// The scale and status subresources and the API lifecycles of the apps workloads, from test/e2e/apps/deployment.go,
// replica_set.go, rc.go, statefulset.go, daemon_set.go and job.go, re-implemented with @kubernetes/client-node
// against the simulator over HTTP with its cluster running (every sim-cluster controller, the default stages 20
// times faster), as against `pnpm apiserver --cluster`. Upstream's `watchtools.Until` waits are polls of the object.
import { KubeClient } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { DEFAULT_POD_STAGES, SimClusterRuntime, type Stage } from "@informer-ts/sim-cluster";
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fasterStages } from "../../interop/kubectl-cluster-harness.js";
import { codeOf, type E2eCluster, stagesExceptFor, startE2eCluster } from "./harness.js";

/**
 * Upstream's `notTerminate` job pods sleep forever: a pod with this annotation neither completes nor fails under
 * these stages (the default ones, 20 times faster).
 */
const NOT_TERMINATE = { "e2e/behaviour": "notTerminate" };
const STAGES: Stage[] = stagesExceptFor(
  fasterStages(20, DEFAULT_POD_STAGES),
  ["pod-complete", "pod-fail"],
  "notTerminate",
);

let c: E2eCluster;
let client: KubeClient;
let apps: K8s.AppsV1Api;
let batch: K8s.BatchV1Api;
const stop = new AbortController();
let done: Promise<void>;

beforeAll(async () => {
  c = await startE2eCluster();
  client = new KubeClient({ server: c.url, qps: -1 });
  const runtime = new SimClusterRuntime({ client, clock: realClock, nodes: 2, stages: STAGES, logger: silentLogger });
  done = runtime.run(stop.signal);
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
  batch = c.kc.makeApiClient(c.k8s.BatchV1Api);
});

afterAll(async () => {
  stop.abort();
  await done;
  await client.close();
  await c.close();
});

const POLL = { timeout: 20_000, interval: 25 };
const HTTPD = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53";
const PAUSE = "registry.k8s.io/pause:3.10";
const merge = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);
const strategic = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch);

function template(labels: Record<string, string>, image: string, name = "httpd"): K8s.V1PodTemplateSpec {
  return { metadata: { labels }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name, image }] } };
}

interface Replicated {
  metadata?: K8s.V1ObjectMeta;
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; conditions?: Array<{ type: string; reason?: string }> };
}

/** Polls `read` until the object's status shows `n` replicas, all ready. */
async function readyReplicas(read: () => Promise<Replicated>, n: number): Promise<void> {
  await expect
    .poll(async () => {
      const s = (await read()).status;
      return [s?.replicas ?? 0, s?.readyReplicas ?? 0];
    }, POLL)
    .toEqual([n, n]);
}

/** The raw GET of a subresource (`dc.Resource(...).Get(ctx, name, opts, sub)`), its JSON. */
async function getSub(path: string): Promise<Record<string, unknown>> {
  const res = await c.raw("GET", path);
  expect(res.status, res.text).toBe(200);
  return res.json as Record<string, unknown>;
}

/**
 * The status endpoints test shared by Deployments, ReplicaSets, StatefulSets and DaemonSets: `Getting /status`, an
 * update of the status adding a `StatusUpdate` condition (retried on conflict), seen on the object; then a merge
 * patch of `/status` with a `StatusPatched` condition, seen too.
 */
async function statusEndpoints(
  path: string,
  read: () => Promise<Replicated>,
  updateStatus: (obj: Replicated) => Promise<Replicated>,
  patchStatus: (body: unknown) => Promise<Replicated>,
): Promise<void> {
  const st = await getSub(`${path}/status`);
  expect((st.metadata as K8s.V1ObjectMeta).name).toBe(path.split("/").pop());
  for (let attempt = 0; ; attempt++) {
    const cur = await read();
    cur.status = {
      ...cur.status,
      conditions: [
        ...(cur.status?.conditions ?? []),
        { type: "StatusUpdate", status: "True", reason: "E2E", message: "Set from e2e test" } as never,
      ],
    };
    try {
      await updateStatus(cur);
      break;
    } catch (err) {
      if (attempt > 20 || codeOf(err) !== 409) throw err;
    }
  }
  await expect
    .poll(async () => (await read()).status?.conditions?.some((x) => x.type === "StatusUpdate" && x.reason === "E2E"))
    .toBe(true);
  const patched = await patchStatus({ status: { conditions: [{ type: "StatusPatched", status: "True" }] } });
  expect(patched.status?.conditions?.map((x) => x.type)).toContain("StatusPatched");
  await expect
    .poll(async () => (await read()).status?.conditions?.some((x) => x.type === "StatusPatched"), POLL)
    .toBe(true);
}

/**
 * The scale subresource test shared by Deployments, ReplicaSets and StatefulSets (`testDeploymentSubresources`,
 * `testRSScaleSubresources`, the StatefulSet one): GET `/scale` shows 1 and 1, an unconditional PUT of 2 is
 * returned and lands in `spec.replicas`, a strategic-merge patch of `/scale` to 4 lands too.
 */
async function scaleSubresource(
  read: () => Promise<Replicated>,
  readScale: () => Promise<K8s.V1Scale>,
  replaceScale: (s: K8s.V1Scale) => Promise<K8s.V1Scale>,
  patchScale: (body: unknown) => Promise<unknown>,
): Promise<void> {
  const scale = await readScale();
  expect(scale.spec?.replicas).toBe(1);
  expect(scale.status?.replicas).toBe(1);
  scale.metadata = { ...scale.metadata, resourceVersion: "" };
  scale.spec = { replicas: 2 };
  const result = await replaceScale(scale);
  expect(result.spec?.replicas).toBe(2);
  expect((await read()).spec?.replicas).toBe(2);
  await patchScale({ spec: { replicas: 4 } });
  expect((await read()).spec?.replicas).toBe(4);
}

function newDeployment(
  name: string,
  replicas: number,
  labels: Record<string, string>,
  image: string,
): K8s.V1Deployment {
  return {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: template(labels, image) },
  };
}

/** `WaitForDeploymentComplete`. */
async function deploymentComplete(ns: string, name: string): Promise<void> {
  await expect
    .poll(async () => {
      const d = await apps.readNamespacedDeployment({ namespace: ns, name });
      const s = d.status ?? {};
      const want = d.spec?.replicas ?? 1;
      return (
        (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
        s.updatedReplicas === want &&
        s.replicas === want &&
        s.availableReplicas === want
      );
    }, POLL)
    .toBe(true);
}

describe("[sig-apps] Deployment (apps/deployment.go)", () => {
  it("Deployment should have a working scale subresource", async () => {
    const ns = await c.namespace("deploy-scale");
    const name = "test-new-deployment";
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: newDeployment(name, 1, { name: "httpd" }, HTTPD),
    });
    await deploymentComplete(ns, name);
    await scaleSubresource(
      () => apps.readNamespacedDeployment({ namespace: ns, name }),
      () => apps.readNamespacedDeploymentScale({ namespace: ns, name }),
      (body) => apps.replaceNamespacedDeploymentScale({ namespace: ns, name, body }),
      (body) => apps.patchNamespacedDeploymentScale({ namespace: ns, name, body }, strategic()),
    );
  });

  it("should validate Deployment Status endpoints", async () => {
    const ns = await c.namespace("deploy-status");
    const name = "test-deployment-x1y2z";
    const d = newDeployment(name, 1, { name: "httpd", e2e: "testing" }, HTTPD);
    d.metadata = { ...d.metadata, labels: { e2e: "testing" } };
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    await expect
      .poll(
        async () =>
          (await apps.readNamespacedDeployment({ namespace: ns, name })).metadata?.annotations?.[
            "deployment.kubernetes.io/revision"
          ],
        POLL,
      )
      .toBe("1");
    await deploymentComplete(ns, name);
    await statusEndpoints(
      `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
      () => apps.readNamespacedDeployment({ namespace: ns, name }),
      (body) => apps.replaceNamespacedDeploymentStatus({ namespace: ns, name, body: body as K8s.V1Deployment }),
      (body) => apps.patchNamespacedDeploymentStatus({ namespace: ns, name, body }, merge()),
    );
  });

  it("should run the lifecycle of a Deployment", async () => {
    const ns = await c.namespace("deploy-lifecycle");
    const name = "test-deployment";
    const labels = { "test-deployment-static": "true" };
    const read = () => apps.readNamespacedDeployment({ namespace: ns, name });
    const d = newDeployment(name, 2, labels, AGNHOST);
    d.metadata = { ...d.metadata, labels: { ...labels } };
    d.spec!.template.spec!.terminationGracePeriodSeconds = 1;
    d.spec!.template.spec!.containers[0]!.name = name;
    await apps.createNamespacedDeployment({ namespace: ns, body: d });
    await expect.poll(async () => (await read()).status?.readyReplicas, POLL).toBe(2);
    // Patching the Deployment: a label, 1 replica, the pause image and a 2 s grace period.
    await apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name,
        body: {
          metadata: { labels: { "test-deployment": "patched" } },
          spec: {
            replicas: 1,
            template: { spec: { terminationGracePeriodSeconds: 2, containers: [{ name, image: PAUSE }] } },
          },
        },
      },
      strategic(),
    );
    await expect
      .poll(async () => {
        const x = await read();
        const s = x.status ?? {};
        return [
          s.readyReplicas,
          s.updatedReplicas,
          s.unavailableReplicas ?? 0,
          x.spec?.template.spec?.containers[0]?.image,
          x.spec?.template.spec?.terminationGracePeriodSeconds,
        ];
      }, POLL)
      .toEqual([1, 1, 0, PAUSE, 2]);
    const listed = await apps.listDeploymentForAllNamespaces({ labelSelector: "test-deployment-static=true" });
    expect(listed.items.some((x) => x.metadata?.name === name && x.metadata.namespace === ns)).toBe(true);
    // Updating the Deployment: the object first created (no resourceVersion: an unconditional update) with a label,
    // the httpd image and 2 replicas.
    d.metadata!.labels = { ...d.metadata?.labels, "test-deployment": "updated" };
    d.spec!.template.spec!.containers[0]!.image = HTTPD;
    d.spec!.replicas = 2;
    await apps.replaceNamespacedDeployment({ namespace: ns, name, body: d });
    const status = await getSub(`/apis/apps/v1/namespaces/${ns}/deployments/${name}/status`);
    const got = status as unknown as K8s.V1Deployment;
    expect(got.spec?.template.spec?.containers[0]?.image).toBe(HTTPD);
    expect(got.metadata?.labels?.["test-deployment"]).toBe("updated");
    const settled = async () =>
      await expect
        .poll(async () => {
          const x = await read();
          const s = x.status ?? {};
          return [
            s.readyReplicas,
            s.updatedReplicas,
            s.unavailableReplicas ?? 0,
            x.spec?.template.spec?.containers[0]?.image,
          ];
        }, POLL)
        .toEqual([2, 2, 0, HTTPD]);
    await settled();
    // Patching the DeploymentStatus (strategic merge): the controller puts the counts back; the labels of an apps
    // workload are not changed through /status.
    await apps.patchNamespacedDeploymentStatus(
      {
        namespace: ns,
        name,
        body: {
          metadata: { labels: { "test-deployment": "patched-status" } },
          status: { readyReplicas: 0, availableReplicas: 0 },
        },
      },
      strategic(),
    );
    const again = (await getSub(`/apis/apps/v1/namespaces/${ns}/deployments/${name}/status`)) as K8s.V1Deployment;
    expect(again.spec?.template.spec?.containers[0]?.image).toBe(HTTPD);
    expect(again.metadata?.labels?.["test-deployment"]).toBe("updated");
    await settled();
    await apps.deleteCollectionNamespacedDeployment({
      namespace: ns,
      labelSelector: "test-deployment-static=true",
      gracePeriodSeconds: 1,
    });
    await expect.poll(async () => (await apps.listNamespacedDeployment({ namespace: ns })).items.length, POLL).toBe(0);
  });
});

function newRS(name: string, replicas: number, labels: Record<string, string>, image: string): K8s.V1ReplicaSet {
  return {
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: labels }, template: template(labels, image) },
  };
}

describe("[sig-apps] ReplicaSet (apps/replica_set.go)", () => {
  it("Replicaset should have a working scale subresource", async () => {
    const ns = await c.namespace("rs-scale");
    const name = "test-rs";
    await apps.createNamespacedReplicaSet({
      namespace: ns,
      body: newRS(name, 1, { name: "sample-pod", pod: "httpd" }, HTTPD),
    });
    const read = () => apps.readNamespacedReplicaSet({ namespace: ns, name });
    await readyReplicas(read, 1);
    await scaleSubresource(
      read,
      () => apps.readNamespacedReplicaSetScale({ namespace: ns, name }),
      (body) => apps.replaceNamespacedReplicaSetScale({ namespace: ns, name, body }),
      (body) => apps.patchNamespacedReplicaSetScale({ namespace: ns, name, body }, strategic()),
    );
  });

  it("Replace and Patch tests", async () => {
    const ns = await c.namespace("rs-lifecycle");
    const name = "test-rs";
    const labels = { name: "sample-pod", pod: "httpd" };
    await apps.createNamespacedReplicaSet({ namespace: ns, body: newRS(name, 1, labels, HTTPD) });
    const read = () => apps.readNamespacedReplicaSet({ namespace: ns, name });
    await readyReplicas(read, 1);
    // Scaling up by replacing the ReplicaSet (UpdateReplicaSetWithRetries).
    for (let attempt = 0; ; attempt++) {
      const cur = await read();
      cur.spec!.replicas = 2;
      try {
        await apps.replaceNamespacedReplicaSet({ namespace: ns, name, body: cur });
        break;
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
    await readyReplicas(read, 2);
    // Patching: 3 replicas of the pause image.
    await apps.patchNamespacedReplicaSet(
      {
        namespace: ns,
        name,
        body: { spec: { replicas: 3, template: { spec: { containers: [{ name: "httpd", image: PAUSE }] } } } },
      },
      strategic(),
    );
    await expect
      .poll(async () => {
        const rs = await read();
        return [rs.status?.readyReplicas, rs.spec?.template?.spec?.containers[0]?.image];
      }, POLL)
      .toEqual([3, PAUSE]);
  });

  it("should validate Replicaset Status endpoints", async () => {
    const ns = await c.namespace("rs-status");
    const name = "test-rs";
    await apps.createNamespacedReplicaSet({
      namespace: ns,
      body: newRS(name, 1, { name: "sample-pod", pod: "httpd" }, HTTPD),
    });
    const read = () => apps.readNamespacedReplicaSet({ namespace: ns, name });
    await readyReplicas(read, 1);
    await statusEndpoints(
      `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`,
      read,
      (body) => apps.replaceNamespacedReplicaSetStatus({ namespace: ns, name, body: body as K8s.V1ReplicaSet }),
      (body) => apps.patchNamespacedReplicaSetStatus({ namespace: ns, name, body }, merge()),
    );
  });
});

function newRC(name: string, replicas: number, labels: Record<string, string>): K8s.V1ReplicationController {
  return {
    metadata: { name, labels },
    spec: { replicas, selector: labels, template: template(labels, "registry.k8s.io/nginx:1.27", name) },
  };
}

describe("[sig-apps] ReplicationController (apps/rc.go)", () => {
  it("should test the lifecycle of a ReplicationController", async () => {
    const ns = await c.namespace("rc-lifecycle");
    const name = "rc-test";
    const labels = { "test-rc-static": "true" };
    const read = () => c.core.readNamespacedReplicationController({ namespace: ns, name });
    await c.core.createNamespacedReplicationController({ namespace: ns, body: newRC(name, 1, labels) });
    await readyReplicas(read, 1);
    const patched = await c.core.patchNamespacedReplicationController(
      { namespace: ns, name, body: { metadata: { labels: { "test-rc": "patched" } } } },
      strategic(),
    );
    expect(patched.metadata?.labels?.["test-rc"]).toBe("patched");
    const st = await c.core.patchNamespacedReplicationControllerStatus(
      { namespace: ns, name, body: { status: { readyReplicas: 0, availableReplicas: 0 } } },
      strategic(),
    );
    expect(st.status?.readyReplicas ?? 0).toBe(0);
    await expect.poll(async () => (await read()).status?.replicas, POLL).toBe(1);
    const fetched = (await getSub(
      `/api/v1/namespaces/${ns}/replicationcontrollers/${name}/status`,
    )) as K8s.V1ReplicationController;
    expect(fetched.status?.replicas).toBe(1);
    // Patching the scale (strategic merge of an autoscaling/v1 Scale) to 2.
    await c.core.patchNamespacedReplicationControllerScale(
      { namespace: ns, name, body: { spec: { replicas: 2 } } },
      strategic(),
    );
    await readyReplicas(read, 2);
    const rc = await read();
    expect(rc.metadata?.labels?.["test-rc"]).toBe("patched");
    rc.status = { ...rc.status!, availableReplicas: 1, readyReplicas: 1 };
    await c.core.replaceNamespacedReplicationControllerStatus({ namespace: ns, name, body: rc });
    const rcs = await c.core.listReplicationControllerForAllNamespaces({ labelSelector: "test-rc-static=true" });
    expect(
      rcs.items.some(
        (x) => x.metadata?.name === name && x.metadata.namespace === ns && x.metadata.labels?.["test-rc"] === "patched",
      ),
    ).toBe(true);
    await c.core.deleteCollectionNamespacedReplicationController({ namespace: ns, labelSelector: "test-rc-static" });
    await expect
      .poll(async () => (await c.core.listNamespacedReplicationController({ namespace: ns })).items.length, POLL)
      .toBe(0);
  });

  it("should get and update a ReplicationController scale", async () => {
    const ns = await c.namespace("rc-scale");
    const name = "e2e-rc-abcde";
    const read = () => c.core.readNamespacedReplicationController({ namespace: ns, name });
    await c.core.createNamespacedReplicationController({ namespace: ns, body: newRC(name, 1, { name }) });
    await readyReplicas(read, 1);
    const scale = await c.core.readNamespacedReplicationControllerScale({ namespace: ns, name });
    expect(scale.status?.replicas).toBe(1);
    scale.metadata = { ...scale.metadata, resourceVersion: "" };
    scale.spec = { replicas: 2 };
    await c.core.replaceNamespacedReplicationControllerScale({ namespace: ns, name, body: scale });
    await expect.poll(async () => (await read()).spec?.replicas, POLL).toBe(2);
    await readyReplicas(read, 2);
  });
});

function newSet(name: string, replicas: number, labels: Record<string, string>): K8s.V1StatefulSet {
  return {
    metadata: { name },
    spec: {
      replicas,
      serviceName: "test",
      selector: { matchLabels: labels },
      template: template(labels, HTTPD, "webserver"),
    },
  };
}

describe("[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] (apps/statefulset.go)", () => {
  it("should have a working scale subresource", async () => {
    const ns = await c.namespace("sts-scale");
    const name = "ss";
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet(name, 1, { foo: "bar", baz: "blah" }) });
    const read = () => apps.readNamespacedStatefulSet({ namespace: ns, name });
    await readyReplicas(read, 1);
    await scaleSubresource(
      read,
      () => apps.readNamespacedStatefulSetScale({ namespace: ns, name }),
      (body) => apps.replaceNamespacedStatefulSetScale({ namespace: ns, name, body }),
      (body) => apps.patchNamespacedStatefulSetScale({ namespace: ns, name, body }, strategic()),
    );
  });

  it("should validate Statefulset Status endpoints", async () => {
    const ns = await c.namespace("sts-status");
    const name = "ss";
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet(name, 1, { foo: "bar", baz: "blah" }) });
    const read = () => apps.readNamespacedStatefulSet({ namespace: ns, name });
    await readyReplicas(read, 1);
    await apps.patchNamespacedStatefulSet(
      { namespace: ns, name, body: { metadata: { labels: { e2e: "testing" } } } },
      strategic(),
    );
    await statusEndpoints(
      `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`,
      read,
      (body) => apps.replaceNamespacedStatefulSetStatus({ namespace: ns, name, body: body as K8s.V1StatefulSet }),
      (body) => apps.patchNamespacedStatefulSetStatus({ namespace: ns, name, body }, merge()),
    );
  });
});

function newDaemonSet(name: string): K8s.V1DaemonSet {
  const labels = { "daemonset-name": name };
  return {
    metadata: { name, labels },
    spec: { selector: { matchLabels: labels }, template: template(labels, HTTPD, "app") },
  };
}

/** `checkRunningOnAllNodes`: a ready pod of the DaemonSet on each of the 2 nodes. */
async function daemonOnAllNodes(ns: string, name: string): Promise<void> {
  await expect
    .poll(async () => {
      const ds = await apps.readNamespacedDaemonSet({ namespace: ns, name });
      return [ds.status?.desiredNumberScheduled, ds.status?.numberReady];
    }, POLL)
    .toEqual([2, 2]);
}

describe("[sig-apps] Daemon set [Serial] (apps/daemon_set.go)", () => {
  it("should list and delete a collection of DaemonSets", async () => {
    const ns = await c.namespace("ds-collection");
    const name = "daemon-set";
    await apps.createNamespacedDaemonSet({ namespace: ns, body: newDaemonSet(name) });
    await daemonOnAllNodes(ns, name);
    const listed = await apps.listDaemonSetForAllNamespaces({ labelSelector: `daemonset-name=${name}` });
    expect(listed.items.filter((x) => x.metadata?.namespace === ns)).toHaveLength(1);
    await apps.deleteCollectionNamespacedDaemonSet({ namespace: ns, labelSelector: `daemonset-name=${name}` });
    await expect
      .poll(
        async () =>
          (await apps.listNamespacedDaemonSet({ namespace: ns, labelSelector: `daemonset-name=${name}` })).items.length,
        POLL,
      )
      .toBe(0);
  });

  it("should verify changes to a daemon set status", async () => {
    const ns = await c.namespace("ds-status");
    const name = "daemon-set";
    await apps.createNamespacedDaemonSet({ namespace: ns, body: newDaemonSet(name) });
    await daemonOnAllNodes(ns, name);
    await statusEndpoints(
      `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`,
      () => apps.readNamespacedDaemonSet({ namespace: ns, name }) as Promise<Replicated>,
      (body) =>
        apps.replaceNamespacedDaemonSetStatus({
          namespace: ns,
          name,
          body: body as K8s.V1DaemonSet,
        }) as Promise<Replicated>,
      (body) => apps.patchNamespacedDaemonSetStatus({ namespace: ns, name, body }, merge()) as Promise<Replicated>,
    );
  });
});

/** `e2ejob.NewTestJob` of a behaviour: `succeed` pods complete, `notTerminate` pods run until deleted. */
function newJob(
  behaviour: "succeed" | "notTerminate",
  name: string,
  parallelism: number,
  completions: number,
): K8s.V1Job {
  return {
    metadata: { name },
    spec: {
      parallelism,
      completions,
      backoffLimit: 6,
      template: {
        metadata: { ...(behaviour === "notTerminate" && { annotations: NOT_TERMINATE }) },
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "c", image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1" }],
        },
      },
    },
  };
}

/** `WaitForJobPodsRunning`: `n` running pods of the Job. */
async function jobPodsRunning(ns: string, name: string, n: number): Promise<void> {
  await expect
    .poll(async () => {
      const pods = await c.core.listNamespacedPod({
        namespace: ns,
        labelSelector: `batch.kubernetes.io/job-name=${name}`,
      });
      return pods.items.filter((p) => p.status?.phase === "Running").length;
    }, POLL)
    .toBe(n);
}

describe("[sig-apps] Job (apps/job.go)", () => {
  it("should apply changes to a job status", async () => {
    const ns = await c.namespace("job-status");
    const name = "suspend-false-to-true";
    await batch.createNamespacedJob({ namespace: ns, body: newJob("notTerminate", name, 2, 4) });
    await jobPodsRunning(ns, name, 2);
    // RFC 3339 seconds, as the wire keeps them.
    const now1 = new Date(Math.floor(Date.now() / 1000) * 1000);
    const patched = await batch.patchNamespacedJobStatus(
      {
        namespace: ns,
        name,
        body: {
          metadata: { annotations: { patchedstatus: "true" } },
          status: {
            conditions: [{ type: "CustomConditionType", status: "True", lastTransitionTime: now1.toISOString() }],
          },
        },
      },
      merge(),
    );
    const custom = (j: K8s.V1Job) => j.status?.conditions?.find((x) => x.type === "CustomConditionType");
    expect(new Date(custom(patched)?.lastTransitionTime ?? 0).getTime()).toBe(now1.getTime());
    expect(patched.metadata?.annotations?.patchedstatus).toBe("true");
    const now2 = new Date(now1.getTime() + 1000);
    let updated: K8s.V1Job | undefined;
    for (let attempt = 0; updated === undefined; attempt++) {
      const cur = await batch.readNamespacedJob({ namespace: ns, name });
      const cond = custom(cur);
      expect(cond, "the patched condition").toBeDefined();
      cond!.lastTransitionTime = now2;
      try {
        updated = await batch.replaceNamespacedJobStatus({ namespace: ns, name, body: cur });
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
    expect(new Date(custom(updated)?.lastTransitionTime ?? 0).getTime()).toBe(now2.getTime());
    const job = await batch.readNamespacedJob({ namespace: ns, name });
    const gotten = await getSub(`/apis/batch/v1/namespaces/${ns}/jobs/${name}/status`);
    expect((gotten.metadata as K8s.V1ObjectMeta).uid).toBe(job.metadata?.uid);
  });

  it("should manage the lifecycle of a job", async () => {
    const ns = await c.namespace("job-lifecycle");
    const name = "e2e-q7r8s";
    const label = { "e2e-job-label": name };
    const job = newJob("succeed", name, 2, 4);
    job.metadata = { ...job.metadata, labels: label };
    job.spec!.suspend = true;
    const created = await batch.createNamespacedJob({ namespace: ns, body: job });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const patched = await batch.patchNamespacedJob(
      { namespace: ns, name, body: { metadata: { labels: { [name]: "patched" } } } },
      strategic(),
    );
    expect(BigInt(patched.metadata?.resourceVersion ?? "0")).toBeGreaterThan(
      BigInt(created.metadata?.resourceVersion ?? "0"),
    );
    expect(patched.metadata?.labels?.[name]).toBe("patched");
    let updated: K8s.V1Job | undefined;
    for (let attempt = 0; updated === undefined; attempt++) {
      const cur = await batch.readNamespacedJob({ namespace: ns, name });
      cur.spec!.suspend = false;
      cur.metadata!.annotations = { ...cur.metadata?.annotations, updated: "true" };
      try {
        updated = await batch.replaceNamespacedJob({ namespace: ns, name, body: cur });
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
    expect(updated.metadata?.annotations?.updated).toBe("true");
    const jobs = await batch.listJobForAllNamespaces({ labelSelector: `e2e-job-label=${name}` });
    expect(jobs.items).toHaveLength(1);
    await expect
      .poll(async () => {
        const j = await batch.readNamespacedJob({ namespace: ns, name });
        return [j.status?.conditions?.find((x) => x.type === "Complete")?.status, j.status?.succeeded];
      }, POLL)
      .toEqual(["True", 4]);
    await batch.deleteCollectionNamespacedJob({
      namespace: ns,
      labelSelector: `e2e-job-label=${name}`,
      propagationPolicy: "Background",
    });
    await expect
      .poll(
        async () => (await batch.listJobForAllNamespaces({ labelSelector: `e2e-job-label=${name}` })).items.length,
        POLL,
      )
      .toBe(0);
  });
});
