// test/e2e/apimachinery/garbage_collector.go "should delete jobs and pods created by cronjob", re-implemented with
// @kubernetes/client-node over HTTP against the simulator with its cluster (sim-cluster's CronJob and Job
// controllers, scheduler, kubelet stand-in). Upstream waits up to two minutes for the `*/1 * * * ?` schedule's first
// Job; here the simulator and its cluster run on a RealClock 60 times as fast as the wall clock (the harness's
// `clockRate`), so a schedule minute is a wall second — the same controllers, schedule and waits, only faster. The
// client's polls run on the wall clock.
import type { BatchV1Api, V1CronJob } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let batch: BatchV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2 }, clockRate: 60 });
  batch = c.kc.makeApiClient(c.k8s.BatchV1Api);
});
afterAll(async () => {
  await c.close();
});

/** Upstream's waits (500 ms polls, up to 2 min and 1 min) in wall time; a minute of schedule is a wall second. */
const POLL = { timeout: 20_000, interval: 50 };

/** `newCronJob` of garbage_collector.go: one pod per Job, `OnFailure`, a container that sleeps for 300 s. */
function newCronJob(name: string, schedule: string): V1CronJob {
  return {
    metadata: { name },
    spec: {
      schedule,
      jobTemplate: {
        spec: {
          parallelism: 1,
          completions: 1,
          template: {
            spec: {
              restartPolicy: "OnFailure",
              terminationGracePeriodSeconds: 0,
              containers: [{ name: "c", image: "busybox", command: ["sleep", "300"] }],
            },
          },
        },
      },
    },
  };
}

/** `verifyRemainingObjects`: how many CronJobs, Jobs and Pods the namespace still has. */
async function remaining(ns: string): Promise<{ CronJobs: number; Jobs: number; Pods: number }> {
  const [cronJobs, jobs, pods] = await Promise.all([
    batch.listNamespacedCronJob({ namespace: ns }),
    batch.listNamespacedJob({ namespace: ns }),
    c.core.listNamespacedPod({ namespace: ns }),
  ]);
  return { CronJobs: cronJobs.items.length, Jobs: jobs.items.length, Pods: pods.items.length };
}

describe("[sig-api-machinery] Garbage collector, with the CronJob controller (apimachinery/garbage_collector.go)", () => {
  it("should delete jobs and pods created by cronjob", async () => {
    const ns = await c.namespace("gc-cronjob");
    await batch.createNamespacedCronJob({ namespace: ns, body: newCronJob("simple", "*/1 * * * ?") });
    // Wait for the CronJob to create a new Job (and the Job its pod, so that there is a pod to collect).
    await expect
      .poll(async () => {
        const r = await remaining(ns);
        return r.Jobs > 0 && r.Pods > 0;
      }, POLL)
      .toBe(true);
    const job = (await batch.listNamespacedJob({ namespace: ns })).items[0]!;
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", name: "simple", controller: true });
    // Delete the cronjob (background propagation, upstream's getBackgroundOptions).
    await batch.deleteNamespacedCronJob({ namespace: ns, name: "simple", propagationPolicy: "Background" });
    // Verify the cronjob leaves neither jobs nor pods behind.
    await expect.poll(() => remaining(ns), POLL).toEqual({ CronJobs: 0, Jobs: 0, Pods: 0 });
  });
});
