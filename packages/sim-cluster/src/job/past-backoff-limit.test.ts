import type { Job, Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { pastBackoffLimitOnFailure } from "./job-controller.js";

const job = (restartPolicy: string): Job =>
  ({ spec: { template: { spec: { restartPolicy, containers: [] } } } }) as unknown as Job;
const pod = (phase: string, ...restarts: number[]): Pod =>
  ({
    status: { phase, containerStatuses: restarts.map((n, i) => ({ name: `c${i}`, restartCount: n })) },
  }) as unknown as Pod;

// pkg/controller/job/job_controller_test.go TestJobBackoffForOnFailure: the restarts of the Job's running and pending
// pods against its backoff limit, under restartPolicy OnFailure.
describe("TestJobBackoffForOnFailure (pastBackoffLimitOnFailure)", () => {
  const cases: { name: string; limit: number; pods: Pod[]; past: boolean; policy?: string }[] = [
    { name: "backoffLimit 0 should have 1 pod active", limit: 0, pods: [pod("Running", 0)], past: false },
    {
      name: "backoffLimit 1 with restartCount 0 should have 1 pod active",
      limit: 1,
      pods: [pod("Running", 0)],
      past: false,
    },
    {
      name: "backoffLimit 1 with restartCount 1 and podRunning should have 0 pod active",
      limit: 1,
      pods: [pod("Running", 1)],
      past: true,
    },
    {
      name: "backoffLimit 1 with restartCount 1 and podPending should have 0 pod active",
      limit: 1,
      pods: [pod("Pending", 1)],
      past: true,
    },
    { name: "too many job failures with podRunning - single pod", limit: 2, pods: [pod("Running", 2)], past: true },
    { name: "too many job failures with podPending - single pod", limit: 2, pods: [pod("Pending", 2)], past: true },
    {
      name: "too many job failures with podRunning - multiple pods",
      limit: 2,
      pods: [pod("Running", 1), pod("Running", 1)],
      past: true,
    },
    {
      name: "too many job failures with podPending - multiple pods",
      limit: 2,
      pods: [pod("Pending", 1, 1)],
      past: true,
    },
    { name: "not enough failures", limit: 3, pods: [pod("Running", 1), pod("Running", 1)], past: false },
    { name: "backoffLimit 0 with restartCount 1 fails at once", limit: 0, pods: [pod("Running", 1)], past: true },
    {
      name: "finished pods' restarts do not count",
      limit: 1,
      pods: [pod("Succeeded", 3), pod("Failed", 3)],
      past: false,
    },
    {
      name: "restartPolicy Never counts failed pods instead",
      limit: 1,
      pods: [pod("Running", 5)],
      past: false,
      policy: "Never",
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(pastBackoffLimitOnFailure(job(tc.policy ?? "OnFailure"), tc.pods, tc.limit)).toBe(tc.past);
    });
  }
});
