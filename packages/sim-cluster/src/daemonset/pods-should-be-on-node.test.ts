import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { podsShouldBeOnNode } from "./pods-should-be-on-node.js";

let n = 0;
function pod(phase: "Running" | "Failed" | "Succeeded"): Pod {
  n++;
  return {
    metadata: {
      name: `foo-${String(n).padStart(3, "0")}`,
      namespace: "default",
      creationTimestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}Z`,
    },
    spec: { nodeName: "node-0" },
    status: { phase },
  } as Pod;
}
const node = (pods: Pod[]) =>
  podsShouldBeOnNode({ node: "node-0", pods, shouldRun: true, shouldContinueRunning: true });

describe("podsShouldBeOnNode (daemon_controller.go)", () => {
  // daemon_controller_test.go TestDaemonKillFailedPods: kill all failed pods, at most one pod per node; and the same
  // table with Succeeded pods (upstream deletes them alike, with a SucceededDaemonPod event).
  const table = [
    { failed: 0, normal: 1, creates: 0, deletes: 0, events: 0, test: "normal (do nothing)" },
    { failed: 0, normal: 0, creates: 1, deletes: 0, events: 0, test: "no pods (create 1)" },
    { failed: 1, normal: 0, creates: 0, deletes: 1, events: 1, test: "1 failed pod (kill 1), 0 normal pod (create 0)" },
    { failed: 1, normal: 3, creates: 0, deletes: 3, events: 1, test: "1 failed pod (kill 1), 3 normal pods (kill 2)" },
    { failed: 2, normal: 1, creates: 0, deletes: 2, events: 2, test: "2 failed pods (kill 2), 1 normal pod" },
  ];
  for (const phase of ["Failed", "Succeeded"] as const) {
    for (const t of table) {
      it(`${t.test} — ${phase}`, () => {
        const done = Array.from({ length: t.failed }, () => pod(phase));
        const normal = Array.from({ length: t.normal }, () => pod("Running"));
        const d = node([...normal, ...done]);
        expect(d.needsPod ? 1 : 0).toBe(t.creates);
        expect(d.toDelete).toHaveLength(t.deletes);
        expect(d.events).toHaveLength(t.events);
        for (const p of done) expect(d.toDelete).toContain(p);
        // The oldest running pod is the one kept.
        if (normal.length > 0) expect(d.toDelete).not.toContain(normal[0]);
        for (const e of d.events) {
          if (phase === "Failed") {
            expect(e).toMatchObject({ type: "Warning", reason: "FailedDaemonPod" });
            expect(e.message).toMatch(/^Found failed daemon pod default\/foo-\d+ on node node-0, will try to kill it$/);
          } else {
            expect(e).toMatchObject({ type: "Normal", reason: "SucceededDaemonPod" });
            expect(e.message).toMatch(
              /^Found succeeded daemon pod default\/foo-\d+ on node node-0, will try to delete it$/,
            );
          }
        }
      });
    }
  }

  it("deleting pods are neither counted nor deleted again; a node that may not keep pods loses them all", () => {
    const deleting = {
      ...pod("Failed"),
      metadata: { ...pod("Failed").metadata, deletionTimestamp: "2026-01-01T00:01:00Z" },
    };
    const d = node([deleting as Pod]);
    expect(d).toEqual({ needsPod: false, toDelete: [], events: [] });
    const kept = [pod("Running"), pod("Succeeded")];
    const gone = podsShouldBeOnNode({ node: "node-0", pods: kept, shouldRun: false, shouldContinueRunning: false });
    expect(gone.toDelete).toEqual(kept);
    expect(gone.events).toEqual([]);
  });
});
