// fast-check properties of the workload controllers in the simulated cluster (in-process, virtual time).
import { type Job, resources, type StatefulSet } from "@informer-ts/client";
import { createSimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conditionTrue, job, podsOf, statefulSet, stored } from "./cluster-helpers.js";

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
