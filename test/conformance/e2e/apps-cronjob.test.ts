// test/e2e/apps/cronjob.go (concurrency policies, history limits, warnings, time zone) re-implemented with
// @kubernetes/client-node over HTTP against the simulator with its cluster (sim-cluster's CronJob and Job
// controllers, scheduler, kubelet stand-in, the garbage collector). The simulator and its cluster run on a RealClock
// 60 times as fast as the wall clock (the harness's `clockRate`): the `*/1 * * * ?` schedule fires every wall second,
// so upstream's waits of minutes take seconds. Upstream's container commands become pod behaviours of the kubelet
// stand-in: `sleep 300` never ends here (the `notTerminate` annotation, {@link STAGES}), `/bin/true` completes after
// the default stages' 5 s, `/bin/false` exits 1 and restarts under `OnFailure` (the `sim-cluster/outcome: Failed`
// annotation) until the Job's backoff limit counts the restarts.
import { OUTCOME_ANNOTATION } from "@informer-ts/sim-cluster";
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, E2E_STAGES, type E2eCluster, stagesExceptFor, startE2eCluster } from "./harness.js";

/** The annotation of a pod whose container sleeps longer than any test here: it neither completes nor fails. */
const NOT_TERMINATE = { "e2e/behaviour": "notTerminate" };
const STAGES = stagesExceptFor(E2E_STAGES, ["pod-complete", "pod-fail", "pod-crash"], "notTerminate");

let c: E2eCluster;
let batch: K8s.BatchV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2, stages: STAGES }, clockRate: 60 });
  batch = c.kc.makeApiClient(c.k8s.BatchV1Api);
});
afterAll(async () => {
  await c.close();
});

/** Upstream's `cronJobTimeout` (5 min) and 2 s polls, in wall time; a schedule minute is a wall second. */
const POLL = { timeout: 30_000, interval: 50 };

type Command = "sleep" | "success" | "failure" | undefined;

/** `newTestCronJob`: one pod per Job, `OnFailure`, backoff limit 1, an `emptyDir` at /data, the given command. */
function newTestCronJob(
  name: string,
  concurrencyPolicy: string,
  command: Command,
  limits: { successful?: number; failed?: number } = {},
): K8s.V1CronJob {
  const annotations =
    command === "sleep" ? NOT_TERMINATE : command === "failure" ? { [OUTCOME_ANNOTATION]: "Failed" } : undefined;
  const argv = command === "sleep" ? ["sleep", "300"] : command === "success" ? ["/bin/true"] : ["/bin/false"];
  return {
    metadata: { name },
    spec: {
      schedule: "*/1 * * * ?",
      concurrencyPolicy,
      ...(limits.successful !== undefined && { successfulJobsHistoryLimit: limits.successful }),
      ...(limits.failed !== undefined && { failedJobsHistoryLimit: limits.failed }),
      jobTemplate: {
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 1,
          template: {
            ...(annotations !== undefined && { metadata: { annotations } }),
            spec: {
              restartPolicy: "OnFailure",
              volumes: [{ name: "data", emptyDir: {} }],
              containers: [
                {
                  name: "c",
                  image: "registry.k8s.io/e2e-test-images/busybox:1.37.0-1",
                  volumeMounts: [{ mountPath: "/data", name: "data" }],
                  ...(command !== undefined && { command: argv }),
                },
              ],
            },
          },
        },
      },
    },
  };
}

const finished = (j: K8s.V1Job) =>
  (j.status?.conditions ?? []).some((x) => (x.type === "Complete" || x.type === "Failed") && x.status === "True");

/** `filterActiveJobs`: the Jobs not finished, and the finished ones. */
async function jobsOf(ns: string): Promise<{ active: K8s.V1Job[]; finished: K8s.V1Job[]; all: K8s.V1Job[] }> {
  const all = (await batch.listNamespacedJob({ namespace: ns })).items;
  return { active: all.filter((j) => !finished(j)), finished: all.filter(finished), all };
}

const activeOf = async (ns: string, name: string) =>
  (await batch.readNamespacedCronJob({ namespace: ns, name })).status?.active ?? [];

/** `waitForActiveJobs`: at least `n` Jobs in the CronJob's `status.active`. */
async function waitForActiveJobs(ns: string, name: string, n: number): Promise<void> {
  await expect.poll(async () => (await activeOf(ns, name)).length, POLL).toBeGreaterThanOrEqual(n);
}

/** `deleteCronJob`: background propagation, so its Jobs and pods go too. */
async function deleteCronJob(ns: string, name: string): Promise<void> {
  await batch.deleteNamespacedCronJob({ namespace: ns, name, propagationPolicy: "Background" });
}

/** `ensureHistoryLimits`: one finished Job is kept; it goes (with its pods) once the next one finishes. */
async function ensureHistoryLimits(ns: string, cronJob: K8s.V1CronJob): Promise<void> {
  await batch.createNamespacedCronJob({ namespace: ns, body: cronJob });
  // waitForAnyFinishedJob: the Job ends at once, so no active one is looked for.
  await expect.poll(async () => (await jobsOf(ns)).finished.length, POLL).toBeGreaterThan(0);
  const first = await jobsOf(ns);
  expect(first.finished).toHaveLength(1);
  const gone = first.finished[0]!.metadata?.name ?? "";
  // waitForJobToDisappear and waitForJobsPodToDisappear: the next minute's Job finishes and this one is cleaned up.
  await expect.poll(async () => (await jobsOf(ns)).all.some((j) => j.metadata?.name === gone), POLL).toBe(false);
  await expect
    .poll(
      async () => (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${gone}` })).items.length,
      POLL,
    )
    .toBe(0);
  await expect.poll(async () => (await jobsOf(ns)).finished.length, POLL).toBe(1);
  await deleteCronJob(ns, cronJob.metadata?.name ?? "");
}

describe("[sig-apps] CronJob (apps/cronjob.go): concurrency, history limits, warnings, time zone", () => {
  it("should schedule multiple jobs concurrently", async () => {
    const ns = await c.namespace("cronjob");
    await batch.createNamespacedCronJob({ namespace: ns, body: newTestCronJob("concurrent", "Allow", "sleep") });
    // Ensuring more than one job is running at a time.
    await waitForActiveJobs(ns, "concurrent", 2);
    expect((await jobsOf(ns)).active.length).toBeGreaterThanOrEqual(2);
    await deleteCronJob(ns, "concurrent");
  });

  it("should not schedule new jobs when ForbidConcurrent", async () => {
    const ns = await c.namespace("cronjob");
    await batch.createNamespacedCronJob({ namespace: ns, body: newTestCronJob("forbid", "Forbid", "sleep") });
    await waitForActiveJobs(ns, "forbid", 1);
    expect(await activeOf(ns, "forbid")).toHaveLength(1);
    expect((await jobsOf(ns)).active).toHaveLength(1);
    // Ensuring no more jobs are scheduled: over five more schedule minutes the one Job stays the only one.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      expect((await activeOf(ns, "forbid")).length).toBeLessThan(2);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await jobsOf(ns)).all).toHaveLength(1);
    await deleteCronJob(ns, "forbid");
  });

  it("should replace jobs when ReplaceConcurrent", async () => {
    const ns = await c.namespace("cronjob");
    await batch.createNamespacedCronJob({ namespace: ns, body: newTestCronJob("replace", "Replace", "sleep") });
    await waitForActiveJobs(ns, "replace", 1);
    expect(await activeOf(ns, "replace")).toHaveLength(1);
    const { active } = await jobsOf(ns);
    expect(active).toHaveLength(1);
    const previous = active[0]!.metadata?.name ?? "";
    // waitForJobReplaced: never two Jobs at once; the one there is a newer one.
    await expect
      .poll(async () => {
        const live = (await jobsOf(ns)).all.filter((j) => j.metadata?.deletionTimestamp == null);
        if (live.length > 1) throw new Error(`more than one job is running: ${live.map((j) => j.metadata?.name)}`);
        return live.length === 1 && live[0]!.metadata?.name !== previous;
      }, POLL)
      .toBe(true);
    await deleteCronJob(ns, "replace");
  });

  it("should not emit unexpected warnings", async () => {
    const ns = await c.namespace("cronjob");
    await batch.createNamespacedCronJob({ namespace: ns, body: newTestCronJob("concurrent", "Allow", undefined) });
    // Ensuring at least two jobs and at least one finished job exists by listing jobs explicitly.
    await expect.poll(async () => (await jobsOf(ns)).all.length, POLL).toBeGreaterThanOrEqual(2);
    await expect.poll(async () => (await jobsOf(ns)).finished.length, POLL).toBeGreaterThan(0);
    // Ensuring no unexpected event has happened.
    const events = (await c.core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.involvedObject.kind === "CronJob" && e.involvedObject.name === "concurrent",
    );
    expect(events.some((e) => e.reason === "SuccessfulCreate")).toBe(true);
    expect(events.filter((e) => e.reason === "MissingJob" || e.reason === "UnexpectedJob")).toEqual([]);
    await deleteCronJob(ns, "concurrent");
  });

  it("should delete successful finished jobs with limit of one successful job", async () => {
    const ns = await c.namespace("cronjob");
    await ensureHistoryLimits(
      ns,
      newTestCronJob("successful-jobs-history-limit", "Allow", "success", { successful: 1, failed: 0 }),
    );
  });

  it("should delete failed finished jobs with limit of one job", async () => {
    const ns = await c.namespace("cronjob");
    await ensureHistoryLimits(
      ns,
      newTestCronJob("failed-jobs-history-limit", "Allow", "failure", { successful: 0, failed: 1 }),
    );
  });

  it("should support timezone", async () => {
    const ns = await c.namespace("cronjob");
    const cronJob = newTestCronJob("cronjob-with-timezone", "Allow", "failure");
    cronJob.spec!.timeZone = "bad-time-zone";
    let code: number | undefined;
    try {
      await batch.createNamespacedCronJob({ namespace: ns, body: cronJob });
    } catch (err) {
      code = codeOf(err);
    }
    expect(code, "Failed to create CronJob, invalid time zone.").toBe(422);
  });
});
