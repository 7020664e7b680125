// The Job controller in the simulated cluster (in-process, virtual time): behaviours of test/e2e/apps/job.go and
// job_controller_test.go's TestControllerSyncJob cases that need pods to run.
import { type Job, type Pod, resources } from "@informer-ts/client";
import { DEFAULT_POD_STAGES, type Stage } from "@informer-ts/sim-cluster";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, conditionTrue, failingIndexStages, job, podsOf, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const jobOf = (name: string) => stored<Job>(c!, "jobs.batch", "default", name);

describe("Job in the simulated cluster", () => {
  it("should run a job to completion when tasks succeed (test/e2e/apps/job.go)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    await c.client.create(resources.jobs, job("pi", { completions: 4, parallelism: 2 }));
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("pi"), "Complete") });
    const j = jobOf("pi")!;
    expect(j.status).toMatchObject({ succeeded: 4, active: 0, ready: 0 });
    expect(j.status?.failed ?? 0).toBe(0);
    expect(j.status?.completionTime).toBeDefined();
    expect(conditionTrue(j, "SuccessCriteriaMet")).toBe(true);
    const pods = podsOf(c, "pi");
    expect(pods).toHaveLength(4);
    for (const p of pods) {
      expect(p.status?.phase).toBe("Succeeded");
      expect(p.metadata?.finalizers ?? []).toEqual([]);
      expect(p.metadata?.labels?.["batch.kubernetes.io/job-name"]).toBe("pi");
    }
    expect(all<{ reason?: string }>(c, "events").map((e) => e.reason)).toContain("Completed");
  });

  it("should run a job to completion with parallelism never exceeded (test/e2e/apps/job.go, parallelism 2 of 5)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["job"] } });
    let maxActive = 0;
    await c.client.create(resources.jobs, job("par", { completions: 5, parallelism: 2 }));
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const active = podsOf(c!, "par").filter((p) => p.status?.phase !== "Succeeded").length;
        maxActive = Math.max(maxActive, active);
        return conditionTrue(jobOf("par"), "Complete");
      },
    });
    expect(maxActive).toBeLessThanOrEqual(2);
    expect(maxActive).toBeGreaterThan(0);
    expect(jobOf("par")?.status?.succeeded).toBe(5);
  });

  it("should fail to exceed backoffLimit (test/e2e/apps/job.go): failed pods are counted, replacements back off, then BackoffLimitExceeded", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    await c.client.create(resources.jobs, job("fail", { backoffLimit: 2, outcome: "Failed" }));
    await c.settle({ maxMs: 600_000, until: () => conditionTrue(jobOf("fail"), "Failed") });
    const j = jobOf("fail")!;
    expect(j.status?.failed).toBe(3);
    expect(j.status?.succeeded ?? 0).toBe(0);
    const failed = (j.status?.conditions ?? []).find((x) => x.type === "Failed");
    expect(failed).toMatchObject({
      reason: "BackoffLimitExceeded",
      message: "Job has reached the specified backoff limit",
    });
    const pods = podsOf(c, "fail").sort((a, b) =>
      (a.metadata?.creationTimestamp ?? "") < (b.metadata?.creationTimestamp ?? "") ? -1 : 1,
    );
    expect(pods).toHaveLength(3);
    // The second replacement waited at least twice as long after its predecessor failed as the first did (10 s, 20 s).
    const finished = (p: Pod) => Date.parse(String(p.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt));
    const created = (p: Pod) => Date.parse(p.metadata?.creationTimestamp ?? "");
    expect(created(pods[1]!) - finished(pods[0]!)).toBeGreaterThanOrEqual(10_000);
    expect(created(pods[2]!) - finished(pods[1]!)).toBeGreaterThanOrEqual(20_000);
  });

  it("should allow to use the pod failure policy on exit code to fail the job early (test/e2e/apps/job.go)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    const policy = { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }] };
    await c.client.create(
      resources.jobs,
      job("pfp", { backoffLimit: 6, outcome: "Failed", exitCode: 42, podFailurePolicy: policy }),
    );
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("pfp"), "Failed") });
    const j = jobOf("pfp")!;
    const failed = (j.status?.conditions ?? []).find((x) => x.type === "Failed");
    expect(failed?.reason).toBe("PodFailurePolicy");
    expect(failed?.message).toMatch(
      /^Container c for pod default\/pfp-\S+ failed with exit code 42 matching FailJob rule at index 0$/,
    );
    expect(j.status?.failed).toBe(1);
  });

  it("should allow to use the pod failure policy to not count the failure towards the backoffLimit (test/e2e/apps/job.go, Ignore)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    // Every pod fails with 137; Ignore leaves `failed` at 0 however many run, so the job never fails by backoff.
    const policy = { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [137] } }] };
    await c.client.create(
      resources.jobs,
      job("ign", { backoffLimit: 0, outcome: "Failed", exitCode: 137, podFailurePolicy: policy }),
    );
    await c.settle({
      maxMs: 60_000,
      until: () => podsOf(c!, "ign").filter((p) => p.status?.phase === "Failed").length >= 3,
    });
    const j = jobOf("ign")!;
    expect(j.status?.failed ?? 0).toBe(0);
    expect(conditionTrue(j, "Failed")).toBe(false);
  });

  it("should fail when exceeds active deadline (test/e2e/apps/job.go)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    // Pods that keep running: restartPolicy OnFailure with a failing outcome crash-loops and never succeeds.
    const j = job("dl", { activeDeadlineSeconds: 30, outcome: "Failed" });
    (j.spec!.template.spec as { restartPolicy: string }).restartPolicy = "OnFailure";
    await c.client.create(resources.jobs, j);
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("dl"), "Failed") });
    const done = jobOf("dl")!;
    const failed = (done.status?.conditions ?? []).find((x) => x.type === "Failed");
    expect(failed).toMatchObject({
      reason: "DeadlineExceeded",
      message: "Job was active longer than specified deadline",
    });
    expect(Date.parse(failed!.lastTransitionTime!) - Date.parse(done.status!.startTime!)).toBeGreaterThanOrEqual(
      30_000,
    );
    await c.settle({ maxMs: 120_000, until: () => podsOf(c!, "dl").length === 0 });
  });

  it.each([
    { policy: "Failed", replacedWhileTerminating: false },
    { policy: "TerminatingOrFailed", replacedWhileTerminating: true },
  ])(
    "podReplacementPolicy $policy: a deleted pod's replacement waits for its failure when the policy is Failed (the kubelet kills it at the end of its grace period, exit code 137)",
    async ({ policy, replacedWhileTerminating }) => {
      // Pods never complete on their own.
      const stages = DEFAULT_POD_STAGES.filter((s) => s.name !== "pod-complete");
      c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"], stages } });
      const j = job("rp", { completions: 1, parallelism: 1, backoffLimit: 1 });
      (j.spec as { podReplacementPolicy?: string }).podReplacementPolicy = policy;
      await c.client.create(resources.jobs, j);
      await c.settle({ maxMs: 60_000, until: () => jobOf("rp")?.status?.ready === 1 });
      const victim = podsOf(c, "rp")[0]!;
      await c.client.delete(resources.pods, victim.metadata!.name!, { namespace: "default", gracePeriodSeconds: 120 });
      // Halfway through the grace period (past the 10 s pod failure backoff).
      const half = c.clock.now() + 60_000;
      await c.settle({ maxMs: 61_000, until: () => c!.clock.now() >= half });
      const during = jobOf("rp")!.status!;
      expect(during.terminating).toBe(1);
      expect(during.active).toBe(replacedWhileTerminating ? 1 : 0);
      expect(during.failed ?? 0).toBe(replacedWhileTerminating ? 1 : 0);
      await c.settle({
        maxMs: 120_000,
        until: () => jobOf("rp")?.status?.active === 1 && jobOf("rp")?.status?.terminating === 0,
      });
      expect(jobOf("rp")?.status?.failed).toBe(1);
      expect(podsOf(c, "rp").some((p) => p.metadata?.uid === victim.metadata?.uid)).toBe(false);
    },
  );

  it("should delete a job (test/e2e/apps/job.go): its pods go with it", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    const j = job("del", { parallelism: 2, completions: 2, outcome: "Failed" });
    (j.spec!.template.spec as { restartPolicy: string }).restartPolicy = "OnFailure";
    await c.client.create(resources.jobs, j);
    await c.settle({ maxMs: 60_000, until: () => jobOf("del")?.status?.active === 2 });
    await c.client.delete(resources.jobs, "del", { namespace: "default", propagationPolicy: "Foreground" });
    await c.settle({ maxMs: 300_000, until: () => jobOf("del") === undefined && podsOf(c!, "del").length === 0 });
    expect(podsOf(c, "del")).toEqual([]);
  });
});

const INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
const indexOf = (p: Pod) => Number(p.metadata?.annotations?.[INDEX_LABEL]);

describe("Indexed Job in the simulated cluster (test/e2e/apps/job.go, job_controller_test.go)", () => {
  it("should create pods for an Indexed job with completion indexes and specified hostname", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    await c.client.create(
      resources.jobs,
      job("indexed-job", { completions: 4, parallelism: 2, completionMode: "Indexed" }),
    );
    let maxActive = 0;
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const active = podsOf(c!, "indexed-job").filter((p) => p.status?.phase !== "Succeeded").length;
        maxActive = Math.max(maxActive, active);
        return conditionTrue(jobOf("indexed-job"), "Complete");
      },
    });
    expect(maxActive).toBe(2);
    const j = jobOf("indexed-job")!;
    expect(j.status).toMatchObject({ succeeded: 4, completedIndexes: "0-3", active: 0 });
    const pods = podsOf(c, "indexed-job").sort((a, b) => indexOf(a) - indexOf(b));
    expect(pods.map(indexOf)).toEqual([0, 1, 2, 3]);
    for (const p of pods) {
      const ix = indexOf(p);
      expect(p.status?.phase).toBe("Succeeded");
      expect(p.spec?.hostname).toBe(`indexed-job-${ix}`);
      expect(p.metadata?.labels?.[INDEX_LABEL]).toBe(String(ix));
      expect(p.metadata?.name?.startsWith(`indexed-job-${ix}-`)).toBe(true);
      expect(p.spec?.containers[0]?.env).toContainEqual({
        name: "JOB_COMPLETION_INDEX",
        valueFrom: { fieldRef: { fieldPath: `metadata.labels['${INDEX_LABEL}']` } },
      });
    }
  });

  it("should execute all indexes despite some failing when using backoffLimitPerIndex", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"], stages: failingIndexStages([1, 3]) } });
    await c.client.create(
      resources.jobs,
      job("with-backoff-limit-per-index", {
        completions: 4,
        parallelism: 2,
        completionMode: "Indexed",
        backoffLimitPerIndex: 1,
      }),
    );
    await c.settle({ maxMs: 600_000, until: () => conditionTrue(jobOf("with-backoff-limit-per-index"), "Failed") });
    const j = jobOf("with-backoff-limit-per-index")!;
    expect(j.status).toMatchObject({ failedIndexes: "1,3", completedIndexes: "0,2", failed: 4, succeeded: 2 });
    expect((j.status?.conditions ?? []).find((x) => x.type === "Failed")).toMatchObject({
      reason: "FailedIndexes",
      message: "Job has failed indexes",
    });
    // Each failing index ran twice; the second pod carries the first one's failure (the failure-count annotation).
    const failed = podsOf(c, "with-backoff-limit-per-index").filter((p) => p.status?.phase === "Failed");
    const counts = failed
      .map((p) => `${indexOf(p)}:${p.metadata?.annotations?.["batch.kubernetes.io/job-index-failure-count"]}`)
      .sort();
    expect(counts).toEqual(["1:0", "1:1", "3:0", "3:1"]);
  });

  it("should terminate job execution when the number of failed indexes exceeds maxFailedIndexes", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    await c.client.create(
      resources.jobs,
      job("with-max-failed-indexes", {
        completions: 4,
        parallelism: 1,
        completionMode: "Indexed",
        backoffLimitPerIndex: 0,
        maxFailedIndexes: 0,
        outcome: "Failed",
      }),
    );
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("with-max-failed-indexes"), "Failed") });
    const j = jobOf("with-max-failed-indexes")!;
    expect(j.status).toMatchObject({ failedIndexes: "0", failed: 1 });
    expect((j.status?.conditions ?? []).find((x) => x.type === "Failed")?.reason).toBe("MaxFailedIndexesExceeded");
    expect(podsOf(c, "with-max-failed-indexes")).toHaveLength(1);
  });

  it("should mark indexes as failed when the FailIndex action is matched in podFailurePolicy", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"], stages: failingIndexStages([1]) } });
    await c.client.create(
      resources.jobs,
      job("matching-fail-index-action", {
        completions: 2,
        parallelism: 2,
        completionMode: "Indexed",
        backoffLimitPerIndex: 1,
        podFailurePolicy: { rules: [{ action: "FailIndex", onExitCodes: { operator: "In", values: [1] } }] },
      }),
    );
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("matching-fail-index-action"), "Failed") });
    const j = jobOf("matching-fail-index-action")!;
    expect(j.status).toMatchObject({ failedIndexes: "1", completedIndexes: "0", failed: 1, succeeded: 1 });
  });

  it("a pod deleted while running counts as failed and its index gets a new pod", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    const j = job("idx", { completions: 3, parallelism: 3, completionMode: "Indexed" });
    (j.spec!.template.spec as { restartPolicy: string }).restartPolicy = "OnFailure";
    (j.spec!.template.metadata as { annotations?: Record<string, string> }).annotations = {
      "sim-cluster/outcome": "Failed",
    };
    await c.client.create(resources.jobs, j);
    await c.settle({ maxMs: 60_000, until: () => jobOf("idx")?.status?.active === 3 });
    const victim = podsOf(c, "idx").find((p) => indexOf(p) === 1)!;
    await c.client.delete(resources.pods, victim.metadata!.name!, { namespace: "default" });
    await c.settle({
      maxMs: 120_000,
      until: () => {
        const live = podsOf(c!, "idx").filter((p) => p.metadata?.deletionTimestamp == null);
        return live.length === 3 && live.every((p) => p.metadata?.uid !== victim.metadata?.uid);
      },
    });
    const live = podsOf(c, "idx").filter((p) => p.metadata?.deletionTimestamp == null);
    expect(live.map(indexOf).sort()).toEqual([0, 1, 2]);
    expect(jobOf("idx")?.status?.failed).toBe(1);
  });
});

describe("Job orphan pods in the simulated cluster (job_controller.go syncOrphanPod)", () => {
  it("a background deletion of a running Job lets its pods go: the orphans' tracking finalizer is removed", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"] } });
    const j = job("bg", { parallelism: 2, completions: 2, outcome: "Failed" });
    (j.spec!.template.spec as { restartPolicy: string }).restartPolicy = "OnFailure";
    await c.client.create(resources.jobs, j);
    await c.settle({ maxMs: 60_000, until: () => jobOf("bg")?.status?.active === 2 });
    expect(podsOf(c, "bg").every((p) => p.metadata?.finalizers?.includes("batch.kubernetes.io/job-tracking"))).toBe(
      true,
    );
    await c.client.delete(resources.jobs, "bg", { namespace: "default", propagationPolicy: "Background" });
    await c.settle({ maxMs: 300_000, until: () => jobOf("bg") === undefined && podsOf(c!, "bg").length === 0 });
    expect(podsOf(c, "bg")).toEqual([]);
  });

  it("a pod controlled by something other than a Job keeps the finalizer", async () => {
    c = await createSimCluster({ cluster: { nodes: 1, controllers: ["job"] } });
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "foreign",
        namespace: "default",
        finalizers: ["batch.kubernetes.io/job-tracking"],
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "rs-uid", controller: true }],
      },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    } as unknown as Pod;
    await c.client.create(resources.pods, pod);
    const end = c.clock.now() + 30_000;
    await c.settle({ maxMs: 31_000, until: () => c!.clock.now() >= end });
    expect(stored<Pod>(c, "pods", "default", "foreign")?.metadata?.finalizers).toEqual([
      "batch.kubernetes.io/job-tracking",
    ]);
  });
});

describe("TTL after finished in the simulated cluster", () => {
  it("should delete a job and its pods ttlSecondsAfterFinished after it finished (test/e2e/apps/ttl_after_finished.go, job should be deleted once it finishes after TTL seconds)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job", "ttl-after-finished"] } });
    await c.client.create(resources.jobs, job("ttl", { ttlSecondsAfterFinished: 30 }));
    await c.settle({ maxMs: 120_000, until: () => conditionTrue(jobOf("ttl"), "Complete") });
    const finished = Date.parse(
      (jobOf("ttl")!.status?.conditions ?? []).find((x) => x.type === "Complete")!.lastTransitionTime!,
    );
    await c.settle({ maxMs: 120_000, until: () => jobOf("ttl") === undefined && podsOf(c!, "ttl").length === 0 });
    // Deleted no earlier than 30 s after it finished.
    expect(c.clock.now() - finished).toBeGreaterThanOrEqual(30_000);
  });

  it("a finished Job without ttlSecondsAfterFinished stays", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job", "ttl-after-finished"] } });
    await c.client.create(resources.jobs, job("keep"));
    await c.settle({ maxMs: 120_000, until: () => conditionTrue(jobOf("keep"), "Complete") });
    const end = c.clock.now() + 300_000;
    await c.settle({ maxMs: 301_000, until: () => c!.clock.now() >= end });
    expect(jobOf("keep")).toBeDefined();
  });
});

/** `stages`, with the pods of `indexes` completing only after `ms` (instead of 5–6 s). */
function slowIndexStages(
  indexes: readonly number[],
  ms: number,
  stages: readonly Stage[] = DEFAULT_POD_STAGES,
): Stage[] {
  const complete = stages.find((st) => st.name === "pod-complete")!;
  return [
    ...stages,
    ...indexes.map((ix) => ({
      ...complete,
      name: `pod-complete-slowly-${ix}`,
      weight: 1e9,
      selector: { ...complete.selector, matchLabels: { "batch.kubernetes.io/job-completion-index": String(ix) } },
      delay: { durationMs: ms },
    })),
  ];
}

// test/integration/job/job_test.go TestSuccessPolicy (the job controller's successPolicy, success_policy.go).
describe("Job successPolicy in the simulated cluster (TestSuccessPolicy)", () => {
  const rules = [
    ["succeededIndexes", { succeededIndexes: "1" }],
    ["succeededCount", { succeededCount: 1 }],
  ] as const;
  for (const [what, rule] of rules) {
    it(`job with successPolicy with ${what}; job has SuccessCriteriaMet and Complete conditions even if some indexes remain pending`, async () => {
      c = await createSimCluster({
        cluster: { nodes: 2, controllers: ["job"], stages: slowIndexStages([0], 3_600_000) },
      });
      const j = job("success-policy", { completions: 2, parallelism: 2, completionMode: "Indexed" });
      (j.spec as { successPolicy?: unknown }).successPolicy = { rules: [rule] };
      const t0 = c.clock.now();
      await c.client.create(resources.jobs, j);
      let metBeforeComplete = false;
      await c.settle({
        maxMs: 300_000,
        until: () => {
          const cur = jobOf("success-policy");
          if (conditionTrue(cur, "SuccessCriteriaMet") && !conditionTrue(cur, "Complete")) metBeforeComplete = true;
          return conditionTrue(cur, "Complete");
        },
      });
      const done = jobOf("success-policy")!;
      expect(metBeforeComplete).toBe(true);
      expect(done.status).toMatchObject({ succeeded: 1, failed: 0, active: 0, completedIndexes: "1" });
      for (const type of ["SuccessCriteriaMet", "Complete"]) {
        expect((done.status?.conditions ?? []).find((x) => x.type === type)).toMatchObject({
          status: "True",
          reason: "SuccessPolicy",
          message: "Matched rules at index 0",
        });
      }
      // Index 0's pod, still running when the policy was met, was deleted; nothing is left running.
      const live = podsOf(c, "success-policy").filter((p) => p.status?.phase !== "Succeeded");
      expect(live).toEqual([]);
      // …long before it would have completed.
      expect(c.clock.now() - t0).toBeLessThan(3_600_000);
    });
  }

  it("job with successPolicy and backoffLimitPerIndex; job has a Failed condition if job meets backoffLimitPerIndex", async () => {
    const stages = failingIndexStages([0], slowIndexStages([1], 60_000));
    c = await createSimCluster({ cluster: { nodes: 2, controllers: ["job"], stages } });
    const j = job("success-policy-failed", {
      completions: 2,
      parallelism: 2,
      completionMode: "Indexed",
      backoffLimitPerIndex: 0,
    });
    (j.spec as { successPolicy?: unknown }).successPolicy = { rules: [{ succeededCount: 1 }] };
    await c.client.create(resources.jobs, j);
    await c.settle({ maxMs: 300_000, until: () => conditionTrue(jobOf("success-policy-failed"), "Failed") });
    const done = jobOf("success-policy-failed")!;
    expect(done.status).toMatchObject({ failed: 1, succeeded: 1, failedIndexes: "0", completedIndexes: "1" });
    expect(conditionTrue(done, "SuccessCriteriaMet")).toBe(false);
    expect(conditionTrue(done, "Complete")).toBe(false);
  });
});
