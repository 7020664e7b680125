// The CronJob controller in the simulated cluster (in-process, virtual time): behaviours of test/e2e/apps/cronjob.go.
import { type CronJob, type Job, resources } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, conditionTrue, cronJob, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const cjOf = (name: string) => stored<CronJob>(c!, "cronjobs.batch", "default", name);
const jobsOf = (name: string) =>
  all<Job>(c!, "jobs.batch").filter(
    (j) => j.metadata?.ownerReferences?.[0]?.name === name && j.metadata?.deletionTimestamp == null,
  );
const activeOf = (name: string) => cjOf(name)?.status?.active ?? [];
const reasons = () => all<{ reason?: string }>(c!, "events").map((e) => e.reason);

/** Advances virtual time by `ms` (or until `until` holds), everything running meanwhile. */
async function advance(ms: number, until: () => boolean = () => false) {
  const end = c!.clock.now() + ms;
  await c!.settle({ maxMs: ms + 1000, until: () => until() || c!.clock.now() >= end });
}

const cluster = () => createSimCluster({ cluster: { nodes: 2, controllers: ["job", "cronjob"] } });

describe("CronJob in the simulated cluster", () => {
  it("should schedule multiple jobs concurrently (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(resources.cronJobs, cronJob("concurrent", { schedule: "*/1 * * * *", sleep: true }));
    await advance(5 * 60_000, () => activeOf("concurrent").length >= 2);
    expect(activeOf("concurrent").length).toBeGreaterThanOrEqual(2);
    expect(jobsOf("concurrent").length).toBeGreaterThanOrEqual(2);
    const cj = cjOf("concurrent")!;
    expect(cj.status?.lastScheduleTime).toMatch(/:00Z$/);
    for (const j of jobsOf("concurrent")) {
      expect(j.metadata?.name).toMatch(/^concurrent-\d+$/);
      const minutes = Number(j.metadata!.name!.split("-")[1]);
      expect(j.metadata?.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toBe(
        `${new Date(minutes * 60_000).toISOString().slice(0, 19)}Z`,
      );
    }
  });

  it("should not schedule jobs when suspended (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(resources.cronJobs, cronJob("suspended", { schedule: "*/1 * * * *", suspend: true }));
    await advance(3 * 60_000);
    expect(jobsOf("suspended")).toEqual([]);
    expect(cjOf("suspended")?.status?.lastScheduleTime).toBeUndefined();
    // Resumed, it schedules again (the most recent activation first).
    await c.client.patch(resources.cronJobs, "suspended", { spec: { suspend: false } }, { namespace: "default" });
    await advance(2 * 60_000, () => jobsOf("suspended").length > 0);
    expect(jobsOf("suspended").length).toBeGreaterThan(0);
  });

  it("should not schedule new jobs when ForbidConcurrent (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(
      resources.cronJobs,
      cronJob("forbid", { schedule: "*/1 * * * *", concurrencyPolicy: "Forbid", sleep: true }),
    );
    await advance(2 * 60_000, () => activeOf("forbid").length === 1);
    const first = activeOf("forbid")[0]!.name;
    await advance(3 * 60_000);
    expect(activeOf("forbid").map((a) => a.name)).toEqual([first]);
    expect(jobsOf("forbid")).toHaveLength(1);
    expect(reasons()).toContain("JobAlreadyActive");
  });

  it("should replace jobs when ReplaceConcurrent (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(
      resources.cronJobs,
      cronJob("replace", { schedule: "*/1 * * * *", concurrencyPolicy: "Replace", sleep: true }),
    );
    await advance(2 * 60_000, () => activeOf("replace").length === 1);
    const first = activeOf("replace")[0]!.name;
    await advance(2 * 60_000, () => activeOf("replace").length === 1 && activeOf("replace")[0]!.name !== first);
    expect(activeOf("replace")).toHaveLength(1);
    expect(activeOf("replace")[0]!.name).not.toBe(first);
    await advance(60_000, () => stored<Job>(c!, "jobs.batch", "default", first!) === undefined);
    expect(stored<Job>(c, "jobs.batch", "default", first!)).toBeUndefined();
  });

  it("should delete successful finished jobs with limit of one successful job (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(
      resources.cronJobs,
      cronJob("limit", { schedule: "*/1 * * * *", successfulJobsHistoryLimit: 1 }),
    );
    await advance(5 * 60_000);
    const jobs = jobsOf("limit");
    const done = jobs.filter((j) => conditionTrue(j, "Complete"));
    expect(done).toHaveLength(1);
    expect(jobs.length).toBeLessThanOrEqual(2);
    expect(cjOf("limit")?.status?.lastSuccessfulTime).toBeDefined();
    expect(reasons()).toContain("SawCompletedJob");
    expect(reasons()).toContain("SuccessfulDelete");
  });

  it("should delete failed finished jobs with limit of one job (test/e2e/apps/cronjob.go)", async () => {
    c = await cluster();
    await c.client.create(
      resources.cronJobs,
      cronJob("failed", { schedule: "*/1 * * * *", failedJobsHistoryLimit: 1, outcome: "Failed" }),
    );
    await advance(5 * 60_000);
    const failed = jobsOf("failed").filter((j) => conditionTrue(j, "Failed"));
    expect(failed).toHaveLength(1);
  });

  it("should not emit unexpected warnings (test/e2e/apps/cronjob.go): an unparseable schedule is one warning event and no job", async () => {
    c = await cluster();
    await c.client.create(resources.cronJobs, cronJob("bad", { schedule: "61 * * * *" }));
    await advance(2 * 60_000);
    expect(jobsOf("bad")).toEqual([]);
    const warnings = all<{ reason?: string; message?: string }>(c, "events").filter(
      (e) => e.reason === "UnparseableSchedule",
    );
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]?.message).toContain('unparseable schedule "61 * * * *"');
  });

  it("startingDeadlineSeconds: an activation missed beyond the deadline is not run late (cronjob_controllerv2_test.go, TestControllerV2SyncCronJob 'prev ran but done, is time, past deadline')", async () => {
    c = await cluster();
    // The schedule's only activation in reach is 2026-01-01T00:00:00Z, when the cluster's clock starts. Both CronJobs
    // are created suspended, given a last schedule a year before, and resumed 30 s after the activation: without a
    // deadline the missed activation runs late; with a 10 s deadline it does not.
    for (const [name, sds] of [
      ["late", 10],
      ["late-ok", undefined],
    ] as const) {
      await c.client.create(
        resources.cronJobs,
        cronJob(name, {
          schedule: "0 0 1 1 *",
          suspend: true,
          ...(sds !== undefined && { startingDeadlineSeconds: sds }),
        }),
      );
      const cj = (await c.client.get(resources.cronJobs, name, { namespace: "default" })) as CronJob;
      await c.client.updateStatus(resources.cronJobs, {
        ...cj,
        status: { lastScheduleTime: "2025-01-01T00:00:00Z" },
      } as CronJob);
    }
    await advance(30_000);
    for (const name of ["late", "late-ok"]) {
      await c.client.patch(resources.cronJobs, name, { spec: { suspend: false } }, { namespace: "default" });
    }
    await advance(60_000, () => jobsOf("late-ok").length > 0);
    await advance(5000);
    expect(jobsOf("late-ok").map((j) => j.metadata?.name)).toEqual([
      `late-ok-${Date.parse("2026-01-01T00:00:00Z") / 60_000}`,
    ]);
    expect(jobsOf("late")).toEqual([]);
  });
});
