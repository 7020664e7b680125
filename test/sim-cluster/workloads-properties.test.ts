// fast-check properties of the workload controllers in the simulated cluster (in-process, virtual time).
import { type Job, resources, type StatefulSet } from "@informer-ts/client";
import { createSimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conditionTrue, failingIndexStages, job, podsOf, statefulSet, stored } from "./cluster-helpers.js";

describe("workload controller properties", () => {
  it("a Job of any completions and parallelism completes with exactly `completions` successes, never more than `parallelism` pods active", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 1000 }),
        async (completions, parallelism, seed) => {
          const c = await createSimCluster({ seed, cluster: { nodes: 2, controllers: ["job"] } });
          try {
            await c.client.create(resources.jobs, job("p", { completions, parallelism }));
            let maxActive = 0;
            await c.settle({
              maxMs: 600_000,
              until: () => {
                const active = podsOf(c, "p").filter(
                  (x) => x.status?.phase !== "Succeeded" && x.status?.phase !== "Failed",
                ).length;
                maxActive = Math.max(maxActive, active);
                return conditionTrue(stored<Job>(c, "jobs.batch", "default", "p"), "Complete");
              },
            });
            const j = stored<Job>(c, "jobs.batch", "default", "p")!;
            expect(j.status?.succeeded).toBe(completions);
            expect(podsOf(c, "p").filter((x) => x.status?.phase === "Succeeded")).toHaveLength(completions);
            expect(maxActive).toBeLessThanOrEqual(parallelism);
          } finally {
            await c.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });

  it("an Indexed Job whose pods of any indexes fail, with any backoffLimitPerIndex, ends with every index either completed or failed, never both", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 1 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
        async (completions, parallelism, backoffLimitPerIndex, failing) => {
          const failIndexes = failing.filter((ix) => ix < completions);
          const c = await createSimCluster({
            cluster: {
              nodes: 2,
              controllers: ["job"],
              stages: failingIndexStages(failIndexes),
              jobPodFailureBackoffMs: 1000,
            },
          });
          try {
            await c.client.create(
              resources.jobs,
              job("ix", { completions, parallelism, completionMode: "Indexed", backoffLimitPerIndex }),
            );
            let maxActive = 0;
            const finished = () => {
              const j = stored<Job>(c, "jobs.batch", "default", "ix");
              return conditionTrue(j, "Complete") || conditionTrue(j, "Failed");
            };
            await c.settle({
              maxMs: 900_000,
              until: () => {
                const active = podsOf(c, "ix").filter(
                  (x) => x.status?.phase !== "Succeeded" && x.status?.phase !== "Failed",
                ).length;
                maxActive = Math.max(maxActive, active);
                return finished();
              },
            });
            expect(finished()).toBe(true);
            const j = stored<Job>(c, "jobs.batch", "default", "ix")!;
            const all = Array.from({ length: completions }, (_, i) => i);
            const want = (xs: number[]) => xs.join(",");
            const ok = all.filter((i) => !failIndexes.includes(i));
            // The interval strings expanded to their indexes ("0-2,4" is 0,1,2,4).
            const expand = (v: string | undefined) =>
              (v ?? "")
                .split(",")
                .filter((x) => x !== "")
                .flatMap((part) => {
                  const [a, b] = part.split("-").map(Number);
                  return Array.from({ length: (b ?? a!) - a! + 1 }, (_, k) => a! + k);
                });
            expect(want(expand(j.status?.completedIndexes))).toBe(want(ok));
            expect(want(expand(j.status?.failedIndexes))).toBe(want([...failIndexes].sort((a, b) => a - b)));
            expect(j.status?.succeeded).toBe(ok.length);
            // Each failing index ran backoffLimitPerIndex + 1 pods, all failed.
            expect(j.status?.failed).toBe(failIndexes.length * (backoffLimitPerIndex + 1));
            expect(conditionTrue(j, failIndexes.length > 0 ? "Failed" : "Complete")).toBe(true);
            expect(maxActive).toBeLessThanOrEqual(parallelism);
          } finally {
            await c.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });

  it("after any sequence of scales a StatefulSet has exactly the pods <set>-0 … <set>-(n-1), all Ready", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("OrderedReady" as const, "Parallel" as const),
        async (scales, policy) => {
          const c = await createSimCluster({ cluster: { nodes: 2, controllers: ["statefulset"] } });
          try {
            const s = statefulSet("ss", 1, { podManagementPolicy: policy });
            (s.spec!.template.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds = 0;
            await c.client.create(resources.statefulSets, s);
            for (const n of scales) {
              await c.client.patchScale(
                resources.statefulSets,
                "ss",
                { spec: { replicas: n } },
                { namespace: "default" },
              );
              // Not settled between scales: the controller sees the next one mid-way.
              await c.settle({ maxMs: 1000, until: () => true });
            }
            const n = scales[scales.length - 1]!;
            await c.settle({
              maxMs: 600_000,
              until: () => {
                const st = stored<StatefulSet>(c, "statefulsets.apps", "default", "ss")?.status;
                return podsOf(c, "ss").length === n && st?.readyReplicas === n && st.replicas === n;
              },
            });
            const names = podsOf(c, "ss")
              .map((p) => p.metadata?.name)
              .sort();
            expect(names).toEqual(Array.from({ length: n }, (_, i) => `ss-${i}`).sort());
          } finally {
            await c.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
