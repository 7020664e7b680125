// test/e2e/apps/{job,statefulset,cronjob}.go re-implemented with @kubernetes/client-node against the simulator over
// HTTP with a cluster inside it (sim-cluster's nodes, kubelet stages, Job/CronJob/StatefulSet controllers), as
// `pnpm apiserver --cluster` runs, but the simulator and its cluster on a clock 20 times as fast as the wall clock
// (the harness's `clockRate`), so that the default stages, grace periods, deadlines and schedules take a twentieth
// of their time and a test takes seconds.
import { silentLogger } from "@informer-ts/instrumentation";
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POD_STAGES, type Stage } from "../../../packages/sim-cluster/src/kubelet/stage.js";
import { failingIndexStages } from "../../sim-cluster/cluster-helpers.js";
import { codeOf, type E2eCluster, NOT_TERMINATE, notTerminatingStages, startE2eCluster } from "./harness.js";

/**
 * Upstream's `failOddSucceedEven` pods exit with `$JOB_COMPLETION_INDEX % 2`; here a pod with this annotation fails
 * when its completion index is odd (the kubelet stand-in's stages, {@link failingIndexStages}).
 */
const FAIL_ODD = { "e2e/behaviour": "failOddSucceedEven" };
/**
 * Upstream's `failOnce` pods under `restartPolicy: OnFailure` fail on their first run and succeed after the kubelet
 * restarted their container (a marker file in an `emptyDir` survives the restart): here a pod with this annotation
 * crashes while its container has not restarted yet, then completes.
 */
const FAIL_ONCE = { "e2e/behaviour": "failOnce" };

/** `stages` with a stage crashing a {@link FAIL_ONCE} pod's container on its first run (before `pod-complete`). */
function failOnceStages(stages: readonly Stage[]): Stage[] {
  const crash = stages.find((s) => s.name === "pod-crash");
  if (crash === undefined) throw new Error("failOnceStages: the stages have no pod-crash stage");
  const exprs = (crash.selector?.matchExpressions ?? []).filter((e) => !e.key.startsWith(".metadata.annotations."));
  return [
    ...stages,
    {
      ...crash,
      name: "pod-fail-once",
      weight: 1e9,
      selector: {
        matchAnnotations: FAIL_ONCE,
        matchExpressions: [...exprs, { key: ".status.containerStatuses.restartCount", operator: "In", values: ["0"] }],
      },
    },
  ];
}

/**
 * Upstream's `failOnce` / `failOncePerIndex` pods pinned to one node under `restartPolicy: Never`: they fail (exit 1,
 * or 42 per index) unless a marker file in their `hostPath` volume exists, which they create as they fail, so the
 * replacement pod succeeds. Here the marker is a kubelet host file at `$(MARKER)/foo` (`$(MARKER)/foo-$(JOB_COMPLETION_INDEX)`
 * per index), `MARKER` being the pod's env var naming its "volume".
 */
const FAIL_ONCE_ON_HOST = { "e2e/behaviour": "failOnceOnHost" };
const FAIL_ONCE_PER_INDEX = { "e2e/behaviour": "failOncePerIndex" };

/** `stages` with the stages failing {@link FAIL_ONCE_ON_HOST} and {@link FAIL_ONCE_PER_INDEX} pods once per marker. */
function failOnceOnHostStages(stages: readonly Stage[]): Stage[] {
  const fail = stages.find((s) => s.name === "pod-fail");
  if (fail === undefined) throw new Error("failOnceOnHostStages: the stages have no pod-fail stage");
  const exprs = (fail.selector?.matchExpressions ?? []).filter((e) => !e.key.startsWith(".metadata.annotations."));
  const failing = (name: string, annotations: Record<string, string>, path: string, exitCode: number): Stage => ({
    ...fail,
    name,
    weight: 1e9,
    selector: { matchAnnotations: annotations, matchExpressions: exprs, hostFile: { path, exists: false } },
    next: {
      ...fail.next,
      containers: { state: "terminated", reason: "Error", exitCode },
      writeHostFile: path,
    },
  });
  return [
    ...stages,
    failing("pod-fail-once-on-host", FAIL_ONCE_ON_HOST, "$(MARKER)/foo", 1),
    failing("pod-fail-once-per-index", FAIL_ONCE_PER_INDEX, "$(MARKER)/foo-$(JOB_COMPLETION_INDEX)", 42),
  ];
}

/** How many times as fast as the wall clock the simulator and its cluster run. */
const CLOCK_RATE = 20;

/** The default stages (on that clock), with {@link FAIL_ODD}, {@link FAIL_ONCE} and {@link NOT_TERMINATE} pods. */
const FAST = notTerminatingStages(
  failOnceOnHostStages(failOnceStages(failingIndexStages([1, 3], DEFAULT_POD_STAGES, FAIL_ODD))),
);

let c: E2eCluster;
let batch: K8s.BatchV1Api;
let apps: K8s.AppsV1Api;

beforeAll(async () => {
  c = await startE2eCluster({
    cluster: {
      nodes: 3,
      stages: FAST,
      controllers: ["job", "cronjob", "statefulset"],
      // 2 s of the cluster's clock: 100 ms of wall time.
      jobPodFailureBackoffMs: 2_000,
      logger: silentLogger,
    },
    clockRate: CLOCK_RATE,
  });
  batch = c.kc.makeApiClient(c.k8s.BatchV1Api);
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});

afterAll(async () => {
  await c.close();
});

const POLL = { timeout: 30_000, interval: 50 };

function newJob(
  name: string,
  o: {
    completions?: number;
    parallelism?: number;
    backoffLimit?: number;
    fail?: number;
    deadline?: number;
    restart?: string;
    policy?: unknown;
    indexed?: boolean;
    backoffLimitPerIndex?: number;
    maxFailedIndexes?: number;
    failOddSucceedEven?: boolean;
    failOnce?: boolean;
    notTerminate?: boolean;
    suspend?: boolean;
    successPolicy?: unknown;
    managedBy?: string;
    podReplacementPolicy?: string;
    /** Pins the pods to this node (`NewTestJobOnNode`) and gives them a `MARKER` env var naming their host volume. */
    onNode?: string;
    /** More pod annotations (merged with the behaviour ones). */
    annotations?: Record<string, string>;
  } = {},
): K8s.V1Job {
  return {
    metadata: { name },
    spec: {
      ...(o.completions !== undefined && { completions: o.completions }),
      ...(o.parallelism !== undefined && { parallelism: o.parallelism }),
      ...(o.backoffLimit !== undefined && { backoffLimit: o.backoffLimit }),
      ...(o.deadline !== undefined && { activeDeadlineSeconds: o.deadline }),
      ...(o.policy !== undefined && { podFailurePolicy: o.policy as K8s.V1PodFailurePolicy }),
      ...(o.indexed === true && { completionMode: "Indexed" }),
      ...(o.backoffLimitPerIndex !== undefined && { backoffLimitPerIndex: o.backoffLimitPerIndex }),
      ...(o.maxFailedIndexes !== undefined && { maxFailedIndexes: o.maxFailedIndexes }),
      ...(o.suspend !== undefined && { suspend: o.suspend }),
      ...(o.successPolicy !== undefined && { successPolicy: o.successPolicy as K8s.V1SuccessPolicy }),
      ...(o.managedBy !== undefined && { managedBy: o.managedBy }),
      ...(o.podReplacementPolicy !== undefined && { podReplacementPolicy: o.podReplacementPolicy }),
      template: {
        metadata: {
          labels: { job: name },
          annotations: {
            ...(o.fail !== undefined && { "sim-cluster/outcome": "Failed", "sim-cluster/exit-code": String(o.fail) }),
            ...(o.failOddSucceedEven === true && FAIL_ODD),
            ...(o.failOnce === true && FAIL_ONCE),
            ...(o.notTerminate === true && NOT_TERMINATE),
            ...o.annotations,
          },
        },
        spec: {
          restartPolicy: o.restart ?? "Never",
          terminationGracePeriodSeconds: 0,
          ...(o.onNode !== undefined && { nodeSelector: { "kubernetes.io/hostname": o.onNode } }),
          containers: [
            {
              name: "c",
              image: "busybox",
              ...(o.onNode !== undefined && { env: [{ name: "MARKER", value: `/tmp/job-${name}-${++markers}` }] }),
            },
          ],
        },
      },
    },
  };
}

let markers = 0;

const cond = (j: K8s.V1Job, type: string) => j.status?.conditions?.find((x) => x.type === type && x.status === "True");

describe("[sig-apps] Job (apps/job.go)", () => {
  it("should run a job to completion when tasks succeed", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({ namespace: ns, body: newJob("all-succeed", { completions: 3, parallelism: 2 }) });
    await expect
      .poll(
        async () =>
          cond(await batch.readNamespacedJob({ name: "all-succeed", namespace: ns }), "Complete") !== undefined,
        POLL,
      )
      .toBe(true);
    const j = await batch.readNamespacedJob({ name: "all-succeed", namespace: ns });
    expect(j.status?.succeeded).toBe(3);
    const pods = await c.core.listNamespacedPod({
      namespace: ns,
      labelSelector: "batch.kubernetes.io/job-name=all-succeed",
    });
    expect(pods.items.filter((p) => p.status?.phase === "Succeeded")).toHaveLength(3);
  });

  it("should delete a job", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("foo", { parallelism: 2, completions: 2, fail: 1, restart: "OnFailure" }),
    });
    await expect
      .poll(async () => (await batch.readNamespacedJob({ name: "foo", namespace: ns })).status?.active, POLL)
      .toBe(2);
    await batch.deleteNamespacedJob({ name: "foo", namespace: ns, propagationPolicy: "Foreground" });
    await expect
      .poll(async () => {
        try {
          await batch.readNamespacedJob({ name: "foo", namespace: ns });
          return "present";
        } catch (err) {
          return codeOf(err) === 404 ? "gone" : String(err);
        }
      }, POLL)
      .toBe("gone");
    await expect
      .poll(
        async () => (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "job-name=foo" })).items.length,
        POLL,
      )
      .toBe(0);
  });

  it("should fail to exceed backoffLimit", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({ namespace: ns, body: newJob("backofflimit", { backoffLimit: 1, fail: 1 }) });
    await expect
      .poll(
        async () => cond(await batch.readNamespacedJob({ name: "backofflimit", namespace: ns }), "Failed")?.reason,
        POLL,
      )
      .toBe("BackoffLimitExceeded");
    const pods = await c.core.listNamespacedPod({ namespace: ns, labelSelector: "job-name=backofflimit" });
    // backoffLimit 1: the first pod and one retry, both Failed.
    expect(pods.items.map((p) => p.status?.phase)).toEqual(["Failed", "Failed"]);
  });

  it("should fail when exceeds active deadline", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("exceed-active-deadline", { deadline: 1, fail: 1, restart: "OnFailure" }),
    });
    await expect
      .poll(
        async () =>
          cond(await batch.readNamespacedJob({ name: "exceed-active-deadline", namespace: ns }), "Failed")?.reason,
        POLL,
      )
      .toBe("DeadlineExceeded");
  });

  it("should allow to use the pod failure policy on exit code to fail the job early", async () => {
    const ns = await c.namespace("job");
    const policy = {
      rules: [{ action: "FailJob", onExitCodes: { containerName: "c", operator: "In", values: [42] } }],
    };
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("fail-early", { backoffLimit: 6, fail: 42, policy }),
    });
    await expect
      .poll(
        async () => cond(await batch.readNamespacedJob({ name: "fail-early", namespace: ns }), "Failed")?.reason,
        POLL,
      )
      .toBe("PodFailurePolicy");
    expect((await batch.readNamespacedJob({ name: "fail-early", namespace: ns })).status?.failed).toBe(1);
  });

  const waitFinished = async (ns: string, name: string, type: "Complete" | "Failed") => {
    await expect
      .poll(async () => cond(await batch.readNamespacedJob({ name, namespace: ns }), type) !== undefined, POLL)
      .toBe(true);
    return batch.readNamespacedJob({ name, namespace: ns });
  };

  it("should create pods for an Indexed job with completion indexes and specified hostname", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("indexed-job", { parallelism: 2, completions: 4, backoffLimit: 6, indexed: true }),
    });
    await waitFinished(ns, "indexed-job", "Complete");
    const pods = await c.core.listNamespacedPod({ namespace: ns, labelSelector: "job-name=indexed-job" });
    const succeeded = new Set<number>();
    for (const p of pods.items) {
      if (p.status?.phase !== "Succeeded") continue;
      const ix = Number(p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"]);
      succeeded.add(ix);
      expect(p.spec?.hostname).toBe(`indexed-job-${ix}`);
    }
    expect([...succeeded].sort()).toEqual([0, 1, 2, 3]);
  });

  it("should execute all indexes despite some failing when using backoffLimitPerIndex", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("with-backoff-limit-per-index", {
        parallelism: 2,
        completions: 4,
        indexed: true,
        backoffLimitPerIndex: 1,
        failOddSucceedEven: true,
      }),
    });
    const j = await waitFinished(ns, "with-backoff-limit-per-index", "Failed");
    expect(j.status?.failedIndexes).toBe("1,3");
    expect(j.status?.completedIndexes).toBe("0,2");
    expect(j.status?.failed).toBe(4);
    expect(j.status?.succeeded).toBe(2);
  });

  it("should terminate job execution when the number of failed indexes exceeds maxFailedIndexes", async () => {
    const ns = await c.namespace("job");
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("with-max-failed-indexes", {
        parallelism: 1,
        completions: 4,
        indexed: true,
        backoffLimitPerIndex: 0,
        maxFailedIndexes: 0,
        fail: 1,
      }),
    });
    const j = await waitFinished(ns, "with-max-failed-indexes", "Failed");
    expect(j.status?.failedIndexes).toBe("0");
    expect(j.status?.failed).toBe(1);
  });

  it("should mark indexes as failed when the FailIndex action is matched in podFailurePolicy", async () => {
    const ns = await c.namespace("job");
    const policy = { rules: [{ action: "FailIndex", onExitCodes: { operator: "In", values: [1] } }] };
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob("matching-fail-index-action", {
        parallelism: 2,
        completions: 2,
        indexed: true,
        backoffLimitPerIndex: 1,
        policy,
        failOddSucceedEven: true,
      }),
    });
    const j = await waitFinished(ns, "matching-fail-index-action", "Failed");
    expect(j.status?.failedIndexes).toBe("1");
    expect(j.status?.completedIndexes).toBe("0");
    expect(j.status?.failed).toBe(1);
    expect(j.status?.succeeded).toBe(1);
  });
});

function newSet(name: string, replicas: number): K8s.V1StatefulSet {
  return {
    metadata: { name },
    spec: {
      replicas,
      serviceName: "test",
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: "RollingUpdate" },
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "webserver", image: "httpd:2.4.38-alpine" }] },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "datadir" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Mi" } } },
        },
      ],
    },
  };
}

async function waitRolledOut(ns: string, name: string, n: number) {
  await expect
    .poll(async () => {
      const s = (await apps.readNamespacedStatefulSet({ name, namespace: ns })).status;
      return (
        s?.readyReplicas === n && s.replicas === n && s.currentRevision === s.updateRevision && s.updatedReplicas === n
      );
    }, POLL)
    .toBe(true);
}

describe("[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] (apps/statefulset.go)", () => {
  it("should provide basic identity", async () => {
    const ns = await c.namespace("sts");
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet("ss", 3) });
    await waitRolledOut(ns, "ss", 3);
    const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "app=ss" })).items;
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual(["ss-0", "ss-1", "ss-2"]);
    for (const p of pods) expect(p.spec?.hostname).toBe(p.metadata?.name);
    const claims = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items.map(
      (x) => x.metadata?.name,
    );
    expect(claims.sort()).toEqual(["datadir-ss-0", "datadir-ss-1", "datadir-ss-2"]);
  });

  it("should perform rolling updates and roll backs of template modifications", async () => {
    const ns = await c.namespace("sts");
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet("ss2", 3) });
    await waitRolledOut(ns, "ss2", 3);
    const before = (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status?.currentRevision;
    const set = await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns });
    set.spec!.template.spec!.containers[0]!.image = "httpd:2.4.39-alpine";
    await apps.replaceNamespacedStatefulSet({ name: "ss2", namespace: ns, body: set });
    await expect
      .poll(
        async () => (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status?.updateRevision,
        POLL,
      )
      .not.toBe(before);
    await waitRolledOut(ns, "ss2", 3);
    const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "app=ss2" })).items;
    expect(pods.map((p) => p.spec?.containers[0]?.image)).toEqual(Array(3).fill("httpd:2.4.39-alpine"));
    // Roll back.
    const again = await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns });
    again.spec!.template.spec!.containers[0]!.image = "httpd:2.4.38-alpine";
    await apps.replaceNamespacedStatefulSet({ name: "ss2", namespace: ns, body: again });
    await expect
      .poll(
        async () => (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status?.updateRevision,
        POLL,
      )
      .toBe(before);
    await waitRolledOut(ns, "ss2", 3);
    expect((await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status?.currentRevision).toBe(before);
  });
  it("Scaling should happen in predictable order and halt if any stateful pod is unhealthy", async () => {
    const ns = await c.namespace("sts");
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet("ordered", 3) });
    // Every observation while scaling up: the pods are a prefix ordered-0…k-1, and only the last may be unready.
    const violations: string[] = [];
    const observe = async () => {
      const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "app=ordered" })).items;
      const ords = pods.map((p) => Number(p.metadata?.name?.split("-")[1])).sort((a, b) => a - b);
      if (ords.some((o, k) => o !== k)) violations.push(`not a prefix: ${ords.join(",")}`);
      const unready = pods.filter((p) => !p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"));
      const last = `ordered-${ords.length - 1}`;
      if (unready.some((p) => p.metadata?.name !== last))
        violations.push(`unready before the last: ${unready.map((p) => p.metadata?.name).join(",")}`);
      return pods.length - unready.length;
    };
    await expect.poll(observe, { ...POLL, interval: 10 }).toBe(3);
    await waitRolledOut(ns, "ordered", 3);
    expect(violations).toEqual([]);
    // Scaling down: from the highest ordinal, one at a time (the controller's deletions, in order).
    await apps.patchNamespacedStatefulSetScale(
      { name: "ordered", namespace: ns, body: { spec: { replicas: 0 } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await expect
      .poll(
        async () => (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "app=ordered" })).items.length,
        POLL,
      )
      .toBe(0);
    const deletes = (await c.core.listNamespacedEvent({ namespace: ns })).items
      .filter((e) => e.reason === "SuccessfulDelete" && e.involvedObject.name === "ordered")
      .sort((a, b) =>
        (a.metadata?.resourceVersion ?? "").localeCompare(b.metadata?.resourceVersion ?? "", undefined, {
          numeric: true,
        }),
      )
      .map((e) => /Pod (\S+)/.exec(e.message ?? "")?.[1]);
    expect(deletes).toEqual(["ordered-2", "ordered-1", "ordered-0"]);
  });
});

describe("[sig-apps] CronJob (apps/cronjob.go)", () => {
  it("should support CronJob API operations", async () => {
    const ns = await c.namespace("cronjob");
    const body: K8s.V1CronJob = {
      metadata: { name: "cj", labels: { special: "yes" } },
      spec: {
        schedule: "@hourly",
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] } } },
        },
      },
    };
    const created = await batch.createNamespacedCronJob({ namespace: ns, body });
    expect(created.spec?.schedule).toBe("@hourly");
    expect((await batch.listNamespacedCronJob({ namespace: ns, labelSelector: "special=yes" })).items).toHaveLength(1);
    const patched = await batch.patchNamespacedCronJob(
      { name: "cj", namespace: ns, body: { metadata: { annotations: { patched: "true" } } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.annotations?.patched).toBe("true");
    const status = await batch.readNamespacedCronJobStatus({ name: "cj", namespace: ns });
    expect(status.metadata?.name).toBe("cj");
    await batch.deleteNamespacedCronJob({ name: "cj", namespace: ns });
    expect((await batch.listNamespacedCronJob({ namespace: ns })).items).toHaveLength(0);
  });

  it("should not schedule jobs when suspended", async () => {
    const ns = await c.namespace("cronjob");
    // A "* * * * *" activation may be a minute (of the cluster's clock) away: both CronJobs are
    // created suspended and given a last schedule an hour ago, so an activation is due at once; then the control one
    // is resumed. Its Job shows the controller has synced both; the suspended one must have none.
    for (const name of ["suspended", "control"]) {
      await batch.createNamespacedCronJob({
        namespace: ns,
        body: {
          metadata: { name },
          spec: {
            schedule: "* * * * *",
            suspend: true,
            jobTemplate: {
              spec: {
                template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] } },
              },
            },
          },
        },
      });
      const cj = await batch.readNamespacedCronJob({ name, namespace: ns });
      cj.status = { lastScheduleTime: new Date(Date.now() - 3_600_000) };
      await batch.replaceNamespacedCronJobStatus({ name, namespace: ns, body: cj });
    }
    await batch.patchNamespacedCronJob(
      { name: "control", namespace: ns, body: { spec: { suspend: false } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    const jobsOf = async (owner: string) =>
      (await batch.listNamespacedJob({ namespace: ns })).items.filter(
        (j) => j.metadata?.ownerReferences?.[0]?.name === owner,
      );
    await expect.poll(async () => (await jobsOf("control")).length, POLL).toBeGreaterThan(0);
    expect(await jobsOf("suspended")).toHaveLength(0);
    expect((await batch.readNamespacedCronJob({ name: "suspended", namespace: ns })).status?.active ?? []).toEqual([]);
  });
});

describe("[sig-apps] StatefulSet Basic StatefulSet functionality, API and claim policies (apps/statefulset.go)", () => {
  it("should list, patch and delete a collection of StatefulSets", async () => {
    const ns = await c.namespace("sts");
    const ss = newSet("test-ss", 1);
    ss.spec!.volumeClaimTemplates = [];
    await apps.createNamespacedStatefulSet({ namespace: ns, body: ss });
    await waitRolledOut(ns, "test-ss", 1);
    // Patching the StatefulSet: a label, 2 replicas, the pause image.
    await apps.patchNamespacedStatefulSet(
      {
        namespace: ns,
        name: "test-ss",
        body: {
          metadata: { labels: { "test-ss": "patched" } },
          spec: {
            replicas: 2,
            template: {
              spec: {
                terminationGracePeriodSeconds: 1,
                containers: [{ name: "webserver", image: "registry.k8s.io/pause:3.10" }],
              },
            },
          },
        },
      },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    await waitRolledOut(ns, "test-ss", 2);
    const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "app=test-ss" })).items;
    expect(pods.map((p) => p.spec?.containers[0]?.image)).toEqual(Array(2).fill("registry.k8s.io/pause:3.10"));
    // Listing all StatefulSets (all namespaces) by the label.
    const listed = await apps.listStatefulSetForAllNamespaces({ labelSelector: "test-ss=patched" });
    expect(listed.items).toHaveLength(1);
    await apps.deleteCollectionNamespacedStatefulSet({
      namespace: ns,
      gracePeriodSeconds: 1,
      labelSelector: "test-ss=patched",
    });
    const after = await apps.listStatefulSetForAllNamespaces({ labelSelector: "test-ss=patched" });
    expect(after.items).toHaveLength(0);
  });

  const claimNames = async (ns: string) =>
    (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items
      .filter((x) => x.metadata?.deletionTimestamp == null)
      .map((x) => x.metadata?.name)
      .sort();

  it("should delete PVCs with a WhenDeleted policy", async () => {
    const ns = await c.namespace("sts");
    const ss = newSet("ss", 3);
    ss.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete" };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: ss });
    await waitRolledOut(ns, "ss", 3);
    // Confirming all 3 PVCs exist with their owner refs (the set's, as controller).
    const set = await apps.readNamespacedStatefulSet({ namespace: ns, name: "ss" });
    const claims = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items;
    expect(claims.map((x) => x.metadata?.name).sort()).toEqual(["datadir-ss-0", "datadir-ss-1", "datadir-ss-2"]);
    for (const claim of claims) {
      expect(claim.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: "StatefulSet", uid: set.metadata?.uid, controller: true }),
      ]);
    }
    await apps.deleteNamespacedStatefulSet({ namespace: ns, name: "ss" });
    // Verifying PVCs deleted.
    await expect.poll(() => claimNames(ns), POLL).toEqual([]);
  });

  it("should delete PVCs with a OnScaledown policy", async () => {
    const ns = await c.namespace("sts");
    const ss = newSet("ss", 3);
    ss.spec!.persistentVolumeClaimRetentionPolicy = { whenScaled: "Delete" };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: ss });
    await waitRolledOut(ns, "ss", 3);
    expect(await claimNames(ns)).toEqual(["datadir-ss-0", "datadir-ss-1", "datadir-ss-2"]);
    // Scaling the set to one replica.
    await apps.patchNamespacedStatefulSetScale(
      { namespace: ns, name: "ss", body: { spec: { replicas: 1 } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    // Verifying all but one PVC deleted.
    await expect.poll(() => claimNames(ns), POLL).toEqual(["datadir-ss-0"]);
  });
});

describe("[sig-apps] Job (apps/job.go): suspension, adoption, readiness, success policies", () => {
  const read = (ns: string, name: string) => batch.readNamespacedJob({ name, namespace: ns });
  const jobPods = async (ns: string, name: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `batch.kubernetes.io/job-name=${name}` })).items;
  const running = async (ns: string, name: string) =>
    (await jobPods(ns, name)).filter((p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp == null)
      .length;
  const setSuspend = async (ns: string, name: string, suspend: boolean) => {
    // updateJobSuspendWithRetries.
    for (let attempt = 0; ; attempt++) {
      const cur = await read(ns, name);
      cur.spec!.suspend = suspend;
      try {
        return await batch.replaceNamespacedJob({ name, namespace: ns, body: cur });
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
  };
  const finished = async (ns: string, name: string, type: "Complete" | "Failed") => {
    await expect.poll(async () => cond(await read(ns, name), type) !== undefined, POLL).toBe(true);
    return read(ns, name);
  };

  it("should not create pods when created in suspend state", async () => {
    const ns = await c.namespace("job");
    const name = "suspend-true-to-false";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, suspend: true }),
    });
    // WaitForJobSuspend: the Suspended condition is set, and no pod was made.
    await expect.poll(async () => cond(await read(ns, name), "Suspended")?.reason, POLL).toBe("JobSuspended");
    expect(await jobPods(ns, name)).toEqual([]);
    await setSuspend(ns, name, false);
    const j = await finished(ns, name, "Complete");
    expect(j.status?.succeeded).toBe(4);
  });

  it("should delete pods when suspended", async () => {
    const ns = await c.namespace("job");
    const name = "suspend-false-to-true";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, suspend: false, notTerminate: true }),
    });
    await expect.poll(() => running(ns, name), POLL).toBe(2);
    await setSuspend(ns, name, true);
    // WaitForAllJobPodsGone.
    await expect.poll(async () => (await jobPods(ns, name)).length, POLL).toBe(0);
    expect(cond(await read(ns, name), "Suspended")).toBeDefined();
  });

  it("should recreate pods only after they have failed if pod replacement policy is set to Failed", async () => {
    const ns = await c.namespace("job");
    const name = "pod-recreate-failed";
    // Upstream's container traps SIGTERM, sleeps 5 s and exits 143: here the pod's annotations say the same (one
    // second, as the stages run 20 times faster), and it does not finish on its own.
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 1,
        completions: 1,
        backoffLimit: 1,
        podReplacementPolicy: "Failed",
        notTerminate: true,
        annotations: { "sim-cluster/termination-exit-code": "143", "sim-cluster/termination-delay-ms": "1000" },
      }),
    });
    await expect.poll(() => running(ns, name), POLL).toBe(1);
    const [pod] = await jobPods(ns, name);
    await c.core.deleteNamespacedPod({ name: pod!.metadata!.name!, namespace: ns, gracePeriodSeconds: 30 });
    const counts = async () => {
      const s = (await read(ns, name)).status;
      return { active: s?.active ?? 0, failed: s?.failed ?? 0, terminating: s?.terminating };
    };
    // Not recreated while it terminates...
    await expect.poll(counts, POLL).toEqual({ active: 0, failed: 0, terminating: 1 });
    // ...but once it failed (exit code 143).
    await expect.poll(counts, POLL).toEqual({ active: 1, failed: 1, terminating: 0 });
    const old = (await jobPods(ns, name)).find((p) => p.metadata?.uid === pod!.metadata?.uid);
    if (old !== undefined) {
      expect(old.status?.phase).toBe("Failed");
      expect(old.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(143);
    }
  });

  it("should run a job to completion when tasks sometimes fail and are locally restarted", async () => {
    const ns = await c.namespace("job");
    const name = "fail-once-local";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, failOnce: true, restart: "OnFailure" }),
    });
    const j = await finished(ns, name, "Complete");
    expect(j.status?.succeeded).toBe(4);
    // Each pod failed once and was restarted in place: no pod was replaced.
    const pods = await jobPods(ns, name);
    expect(pods).toHaveLength(4);
    for (const p of pods) {
      expect(p.status?.phase).toBe("Succeeded");
      expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    }
  });

  it("should run a job to completion when tasks sometimes fail and are not locally restarted", async () => {
    const ns = await c.namespace("job");
    const name = "fail-once-non-local";
    // GetRandomReadySchedulableNode.
    const node = (await c.core.listNode()).items[0]!.metadata!.name!;
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 2,
        completions: 4,
        backoffLimit: 6,
        onNode: node,
        annotations: FAIL_ONCE_ON_HOST,
      }),
    });
    const j = await finished(ns, name, "Complete");
    expect(j.status?.succeeded).toBe(4);
    // The first pods failed (exit code 1) and were replaced by new pods, not restarted in place.
    const failed = j.status?.failed ?? 0;
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(failed).toBeLessThanOrEqual(2);
    const pods = await jobPods(ns, name);
    expect(pods).toHaveLength(4 + failed);
    for (const p of pods) {
      expect(p.spec?.nodeName).toBe(node);
      expect(p.status?.containerStatuses?.[0]?.restartCount ?? 0).toBe(0);
    }
    expect(pods.filter((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode === 1).length).toBe(failed);
  });

  it("should allow to use a pod failure policy to ignore failure matching on exit code", async () => {
    const ns = await c.namespace("job");
    const name = "fail-pod-ignore-on-exit-code";
    const numPods = 3;
    const node = (await c.core.listNode()).items[0]!.metadata!.name!;
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: numPods,
        completions: numPods,
        // One failure per index: the Job would fail at numPods - 1 counted failures.
        backoffLimit: numPods - 1,
        indexed: true,
        onNode: node,
        annotations: FAIL_ONCE_PER_INDEX,
        policy: { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [42] } }] },
      }),
    });
    const j = await finished(ns, name, "Complete");
    expect(cond(j, "Complete")?.reason).toBe("CompletionsReached");
    expect(j.status?.succeeded).toBe(numPods);
    // Every index failed once with exit code 42, and none of those failures was counted.
    expect(j.status?.failed ?? 0).toBe(0);
    const pods = await jobPods(ns, name);
    const ignored = pods.filter((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode === 42);
    expect(ignored.map((p) => p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"]).sort()).toEqual([
      "0",
      "1",
      "2",
    ]);
  });

  it("should remove pods when job is deleted", async () => {
    const ns = await c.namespace("job");
    const name = "all-pods-removed";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, notTerminate: true }),
    });
    await expect.poll(() => running(ns, name), POLL).toBe(2);
    // DeleteResourceAndWaitForGC: a background deletion; the garbage collector removes the pods.
    await batch.deleteNamespacedJob({ name, namespace: ns, propagationPolicy: "Background" });
    await expect
      .poll(async () => {
        try {
          await read(ns, name);
          return "present";
        } catch (err) {
          return codeOf(err) === 404 ? "gone" : String(err);
        }
      }, POLL)
      .toBe("gone");
    await expect.poll(async () => (await jobPods(ns, name)).length, POLL).toBe(0);
  });

  it("should adopt matching orphans and release non-matching pods", async () => {
    const ns = await c.namespace("job");
    const name = "adopt-release";
    const job = await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, notTerminate: true }),
    });
    await expect.poll(() => running(ns, name), POLL).toBe(2);
    const [pod] = await jobPods(ns, name);
    const podName = pod?.metadata?.name ?? "";
    const controllerOf = async () =>
      (await c.core.readNamespacedPod({ name: podName, namespace: ns })).metadata?.ownerReferences?.find(
        (r) => r.controller === true,
      );
    // Orphaning the pod: the Job adopts it again.
    await c.core.patchNamespacedPod(
      { name: podName, namespace: ns, body: { metadata: { ownerReferences: null } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await expect
      .poll(async () => {
        const ref = await controllerOf();
        return ref === undefined ? undefined : [ref.kind, ref.name, ref.uid];
      }, POLL)
      .toEqual(["Job", name, job.metadata?.uid]);
    // Removing its labels: the Job releases it.
    const cur = await c.core.readNamespacedPod({ name: podName, namespace: ns });
    cur.metadata!.labels = {};
    await c.core.replaceNamespacedPod({ name: podName, namespace: ns, body: cur });
    await expect.poll(async () => (await controllerOf()) === undefined, POLL).toBe(true);
  });

  it("should update the status ready field", async () => {
    const ns = await c.namespace("job");
    const name = "all-ready";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, suspend: true, notTerminate: true }),
    });
    // WaitForJobReady: status.ready is 0 (set, not absent) while suspended, 2 once running, 0 when suspended again.
    await expect.poll(async () => (await read(ns, name)).status?.ready, POLL).toBe(0);
    await setSuspend(ns, name, false);
    await expect.poll(async () => (await read(ns, name)).status?.ready, POLL).toBe(2);
    await setSuspend(ns, name, true);
    await expect.poll(async () => (await read(ns, name)).status?.ready, POLL).toBe(0);
  });

  it("should allow to delegate reconciliation to external controller", async () => {
    const ns = await c.namespace("job");
    const name = "managed-by";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 2,
        completions: 4,
        backoffLimit: 6,
        managedBy: "example.com/custom-job-controller",
      }),
    });
    // A control Job beside it, synced by the same controller: once it has pods, the delegated one has been seen.
    await batch.createNamespacedJob({ namespace: ns, body: newJob("control", { parallelism: 1, completions: 1 }) });
    await expect.poll(async () => (await jobPods(ns, "control")).length, POLL).toBeGreaterThan(0);
    expect((await read(ns, name)).status ?? {}).toEqual({});
    expect(await jobPods(ns, name)).toEqual([]);
  });

  it("should create pods with completion indexes for an Indexed Job", async () => {
    const ns = await c.namespace("job");
    const name = "indexed-job";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 4, backoffLimit: 6, indexed: true }),
    });
    await finished(ns, name, "Complete");
    const indexes = new Set(
      (await jobPods(ns, name)).map((p) => Number(p.metadata?.labels?.["batch.kubernetes.io/job-completion-index"])),
    );
    expect([...indexes].sort()).toEqual([0, 1, 2, 3]);
  });

  it("with successPolicy should succeeded when all indexes succeeded", async () => {
    const ns = await c.namespace("job");
    const name = "with-success-policy-all-index-succeeded";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 2,
        completions: 2,
        backoffLimit: 6,
        indexed: true,
        successPolicy: { rules: [{ succeededCount: 2 }] },
      }),
    });
    await expect.poll(async () => cond(await read(ns, name), "SuccessCriteriaMet")?.reason, POLL).toBe("SuccessPolicy");
    const j = await finished(ns, name, "Complete");
    expect(cond(j, "Complete")?.reason).toBe("SuccessPolicy");
    expect([j.status?.active ?? 0, j.status?.ready, j.status?.terminating, j.status?.failed ?? 0]).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it("with successPolicy succeededIndexes rule should succeeded even when some indexes remain pending", async () => {
    const ns = await c.namespace("job");
    const name = "with-success-policy-succeeded-indexed";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 2,
        completions: 5,
        backoffLimit: 6,
        indexed: true,
        failOddSucceedEven: true,
        successPolicy: { rules: [{ succeededIndexes: "0" }] },
      }),
    });
    await expect.poll(async () => cond(await read(ns, name), "SuccessCriteriaMet")?.reason, POLL).toBe("SuccessPolicy");
    const j = await finished(ns, name, "Complete");
    expect(cond(j, "Complete")?.reason).toBe("SuccessPolicy");
    expect(j.status?.completedIndexes).toBe("0");
    expect([j.status?.active ?? 0, j.status?.ready, j.status?.terminating]).toEqual([0, 0, 0]);
  });

  it("with successPolicy succeededCount rule should succeeded even when some indexes remain pending", async () => {
    const ns = await c.namespace("job");
    const name = "with-success-policy-succeeded-count";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, {
        parallelism: 2,
        completions: 5,
        backoffLimit: 2147483647,
        indexed: true,
        failOddSucceedEven: true,
        successPolicy: { rules: [{ succeededCount: 1 }] },
      }),
    });
    await expect.poll(async () => cond(await read(ns, name), "SuccessCriteriaMet")?.reason, POLL).toBe("SuccessPolicy");
    const j = await finished(ns, name, "Complete");
    expect(cond(j, "Complete")?.reason).toBe("SuccessPolicy");
    expect(j.status?.completedIndexes).toBe("0");
    expect([j.status?.active ?? 0, j.status?.ready, j.status?.terminating]).toEqual([0, 0, 0]);
  });

  it("should record the failure-count in the Pod annotation when using backoffLimitPerIndex", async () => {
    const ns = await c.namespace("job");
    const name = "e2e-backofflimitperindex-a1b2c";
    await batch.createNamespacedJob({
      namespace: ns,
      body: newJob(name, { parallelism: 2, completions: 2, indexed: true, backoffLimitPerIndex: 1, fail: 1 }),
    });
    const j = await finished(ns, name, "Failed");
    // Upstream tracks the annotations of every pod it sees; here the failed pods are all still there.
    const seen = new Map<number, string[]>();
    for (const p of await jobPods(ns, name)) {
      const ix = Number(p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"]);
      seen.set(ix, [
        ...(seen.get(ix) ?? []),
        p.metadata?.annotations?.["batch.kubernetes.io/job-index-failure-count"] ?? "",
      ]);
    }
    expect(Object.fromEntries([...seen].map(([ix, counts]) => [ix, counts.sort()]))).toEqual({
      0: ["0", "1"],
      1: ["0", "1"],
    });
    expect(j.status?.failedIndexes).toBe("0,1");
    expect(j.status?.completedIndexes ?? "").toBe("");
    expect(j.status?.failed).toBe(4);
    expect(j.status?.succeeded ?? 0).toBe(0);
  });
});

describe("[sig-apps] StatefulSet (apps/statefulset.go): adoption, OnDelete, start ordinals", () => {
  const podNames = async (ns: string, app: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items
      .filter((p) => p.metadata?.deletionTimestamp == null)
      .map((p) => p.metadata?.name ?? "")
      .sort();
  const revisionOf = async (ns: string, name: string) =>
    (await c.core.readNamespacedPod({ name, namespace: ns })).metadata?.labels?.["controller-revision-hash"];
  /** `deleteStatefulPodAtIndex` and waiting for its replacement (a new UID), Running and Ready. */
  const recreate = async (ns: string, name: string) => {
    const uid = (await c.core.readNamespacedPod({ name, namespace: ns })).metadata?.uid;
    await c.core.deleteNamespacedPod({ name, namespace: ns });
    await expect
      .poll(async () => {
        try {
          const p = await c.core.readNamespacedPod({ name, namespace: ns });
          const ready = p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
          return p.metadata?.uid !== uid && ready && p.metadata?.deletionTimestamp == null;
        } catch {
          return false;
        }
      }, POLL)
      .toBe(true);
  };

  it("should adopt matching orphans and release non-matching pods", async () => {
    const ns = await c.namespace("sts");
    const ss = await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet("ss", 1) });
    await waitRolledOut(ns, "ss", 1);
    const ref = async () =>
      (await c.core.readNamespacedPod({ name: "ss-0", namespace: ns })).metadata?.ownerReferences?.find(
        (r) => r.controller === true,
      );
    expect([(await ref())?.kind, (await ref())?.uid]).toEqual(["StatefulSet", ss.metadata?.uid]);
    const mergePatch = c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);
    // Orphaning the pod: the set adopts it again.
    await c.core.patchNamespacedPod(
      { name: "ss-0", namespace: ns, body: { metadata: { ownerReferences: null } } },
      mergePatch,
    );
    await expect.poll(async () => (await ref())?.uid, POLL).toBe(ss.metadata?.uid);
    // Removing its labels: the set releases it.
    const pod = await c.core.readNamespacedPod({ name: "ss-0", namespace: ns });
    const prevLabels = pod.metadata?.labels;
    pod.metadata!.labels = {};
    await c.core.replaceNamespacedPod({ name: "ss-0", namespace: ns, body: pod });
    await expect.poll(async () => (await ref()) === undefined, POLL).toBe(true);
    // Its labels back: adopted again.
    const again = await c.core.readNamespacedPod({ name: "ss-0", namespace: ns });
    again.metadata!.labels = prevLabels;
    await c.core.replaceNamespacedPod({ name: "ss-0", namespace: ns, body: again });
    await expect.poll(async () => (await ref())?.uid, POLL).toBe(ss.metadata?.uid);
  });

  it("should implement legacy replacement when the update strategy is OnDelete", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss2", 3);
    set.spec!.updateStrategy = { type: "OnDelete" };
    set.spec!.volumeClaimTemplates = [];
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitRolledOut(ns, "ss2", 3);
    const first = (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status!;
    expect(first.currentRevision).toBe(first.updateRevision);
    // Restoring pods to the current revision when they are deleted.
    for (const i of [0, 1, 2]) await recreate(ns, `ss2-${i}`);
    for (const i of [0, 1, 2]) expect(await revisionOf(ns, `ss2-${i}`)).toBe(first.currentRevision);
    const cur = await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns });
    cur.spec!.template.spec!.containers[0]!.image = "httpd:2.4.39-alpine";
    await apps.replaceNamespacedStatefulSet({ name: "ss2", namespace: ns, body: cur });
    await expect
      .poll(
        async () => (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status?.updateRevision,
        POLL,
      )
      .not.toBe(first.currentRevision);
    const updateRevision = (await apps.readNamespacedStatefulSet({ name: "ss2", namespace: ns })).status
      ?.updateRevision;
    // OnDelete: nothing is replaced until a pod is deleted; recreated, each is of the new revision.
    for (const i of [0, 1, 2]) expect(await revisionOf(ns, `ss2-${i}`)).toBe(first.currentRevision);
    for (const i of [0, 1, 2]) await recreate(ns, `ss2-${i}`);
    for (const i of [0, 1, 2]) {
      const p = await c.core.readNamespacedPod({ name: `ss2-${i}`, namespace: ns });
      expect([p.spec?.containers[0]?.image, p.metadata?.labels?.["controller-revision-hash"]]).toEqual([
        "httpd:2.4.39-alpine",
        updateRevision,
      ]);
    }
  });

  /** A 2-replica set `ss` without claims, with `ordinals.start` when given, rolled out; its pod names. */
  const ordinalSet = async (ns: string, start?: number) => {
    const set = newSet("ss", 2);
    set.spec!.volumeClaimTemplates = [];
    if (start !== undefined) set.spec!.ordinals = { start };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitRolledOut(ns, "ss", 2);
    return podNames(ns, "ss");
  };
  /** `updateStatefulSetWithRetries`. */
  const updateSet = async (ns: string, change: (s: K8s.V1StatefulSet) => void) => {
    for (let attempt = 0; ; attempt++) {
      const cur = await apps.readNamespacedStatefulSet({ name: "ss", namespace: ns });
      change(cur);
      try {
        return await apps.replaceNamespacedStatefulSet({ name: "ss", namespace: ns, body: cur });
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
  };
  /** `waitForPodNames` and the status: exactly these pods, all ready. */
  const settlesOn = async (ns: string, names: string[]) => {
    await expect.poll(() => podNames(ns, "ss"), POLL).toEqual(names);
    await waitRolledOut(ns, "ss", names.length);
  };

  it("Setting .start.ordinal", async () => {
    const ns = await c.namespace("sts");
    expect(await ordinalSet(ns)).toEqual(["ss-0", "ss-1"]);
    await updateSet(ns, (s) => {
      s.spec!.ordinals = { start: 2 };
      s.spec!.replicas = 3;
    });
    await settlesOn(ns, ["ss-2", "ss-3", "ss-4"]);
  });

  it("Increasing .start.ordinal", async () => {
    const ns = await c.namespace("sts");
    expect(await ordinalSet(ns, 2)).toEqual(["ss-2", "ss-3"]);
    await updateSet(ns, (s) => {
      s.spec!.ordinals = { start: 4 };
    });
    await settlesOn(ns, ["ss-4", "ss-5"]);
  });

  it("Decreasing .start.ordinal", async () => {
    const ns = await c.namespace("sts");
    expect(await ordinalSet(ns, 3)).toEqual(["ss-3", "ss-4"]);
    await updateSet(ns, (s) => {
      s.spec!.ordinals = { start: 2 };
    });
    await settlesOn(ns, ["ss-2", "ss-3"]);
  });

  it("Removing .start.ordinal", async () => {
    const ns = await c.namespace("sts");
    expect(await ordinalSet(ns, 3)).toEqual(["ss-3", "ss-4"]);
    await updateSet(ns, (s) => {
      delete s.spec!.ordinals;
    });
    await settlesOn(ns, ["ss-0", "ss-1"]);
  });
});

describe("[sig-apps] StatefulSet (apps/statefulset.go): minReadySeconds", () => {
  it("MinReadySeconds should be honored when enabled", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("test-ss", 1);
    set.spec!.volumeClaimTemplates = [];
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    // WaitForStatusAvailableReplicas(1).
    await expect
      .poll(
        async () =>
          (await apps.readNamespacedStatefulSet({ name: "test-ss", namespace: ns })).status?.availableReplicas,
        POLL,
      )
      .toBe(1);
  });
});

describe("[sig-apps] CronJob (apps/cronjob.go): scheduling", () => {
  /** `newTestCronJob` with a `sleep 300` (here: notTerminate) job; its last schedule set `agoMs` back so one is due. */
  const dueCronJob = async (ns: string, name: string, policy: string, agoMs: number) => {
    await batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          schedule: "*/1 * * * ?",
          concurrencyPolicy: policy,
          suspend: true,
          jobTemplate: {
            spec: {
              parallelism: 1,
              completions: 1,
              backoffLimit: 0,
              template: {
                metadata: { annotations: NOT_TERMINATE },
                spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] },
              },
            },
          },
        },
      },
    });
    // A last schedule in the past makes an activation due at once (the cluster's clock is ahead of the wall clock, so
    // a wall-clock time is in its past).
    const cj = await batch.readNamespacedCronJob({ name, namespace: ns });
    cj.status = { lastScheduleTime: new Date(Date.now() - agoMs) };
    await batch.replaceNamespacedCronJobStatus({ name, namespace: ns, body: cj });
    await batch.patchNamespacedCronJob(
      { name, namespace: ns, body: { spec: { suspend: false } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
  };
  const active = async (ns: string, name: string) =>
    (await batch.readNamespacedCronJob({ name, namespace: ns })).status?.active ?? [];

  it("should set the cronjob-scheduled-timestamp annotation on a job", async () => {
    const ns = await c.namespace("cronjob");
    await dueCronJob(ns, "concurrent", "Allow", 3_600_000);
    await expect
      .poll(async () => (await batch.listNamespacedJob({ namespace: ns })).items.length, POLL)
      .toBeGreaterThan(0);
    const [job] = (await batch.listNamespacedJob({ namespace: ns })).items;
    const stamp = job?.metadata?.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"];
    expect(stamp, "missing cronjob-scheduled-timestamp annotation").toBeDefined();
    expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Number.isNaN(Date.parse(stamp ?? ""))).toBe(false);
  });

  it("should be able to schedule after more than 100 missed schedule", async () => {
    const ns = await c.namespace("cronjob");
    // Upstream backdates the CronJob 99 days (its last schedule 98 days ago): far more than 100 missed activations.
    await dueCronJob(ns, "concurrent", "Forbid", 98 * 24 * 3_600_000);
    await expect.poll(async () => (await active(ns, "concurrent")).length, POLL).toBe(1);
    // filterActiveJobs: at least one Job not finished.
    const jobs = (await batch.listNamespacedJob({ namespace: ns })).items;
    const finished = (j: K8s.V1Job) =>
      (j.status?.conditions ?? []).some((x) => (x.type === "Complete" || x.type === "Failed") && x.status === "True");
    expect(jobs.filter((j) => !finished(j)).length).toBeGreaterThan(0);
  });

  it("should remove from active list jobs that have been deleted", async () => {
    const ns = await c.namespace("cronjob");
    await dueCronJob(ns, "forbid", "Forbid", 3_600_000);
    await expect.poll(async () => (await active(ns, "forbid")).length, POLL).toBe(1);
    const [ref] = await active(ns, "forbid");
    const jobName = ref?.name ?? "";
    // DeleteResourceAndWaitForGC.
    await batch.deleteNamespacedJob({ name: jobName, namespace: ns, propagationPolicy: "Foreground" });
    await expect
      .poll(async () => {
        try {
          await batch.readNamespacedJob({ name: jobName, namespace: ns });
          return "present";
        } catch (err) {
          return codeOf(err) === 404 ? "gone" : String(err);
        }
      }, POLL)
      .toBe("gone");
    // waitForJobNotActive, then the MissingJob event.
    await expect.poll(async () => (await active(ns, "forbid")).some((r) => r.name === jobName), POLL).toBe(false);
    await expect
      .poll(
        async () =>
          (await c.core.listNamespacedEvent({ namespace: ns })).items.some(
            (e) => e.reason === "MissingJob" && e.involvedObject.name === "forbid",
          ),
        POLL,
      )
      .toBe(true);
  });
});
