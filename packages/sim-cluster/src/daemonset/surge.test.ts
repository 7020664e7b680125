// The surge decisions of pkg/controller/daemon/update.go (rollingUpdate with maxSurge) and daemon_controller.go
// (podsShouldBeOnNode with surge), as tables over hollow pods: the invariants upstream's comments state.
import type { Pod } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { excessSurgePods, findUpdatedPodsOnNode, type SurgePods, surgeRollingUpdatePlan } from "./surge.js";

/** A pod by name: `new`/`old`, `a` (available), `r` (ready, not yet available), `d` (deleting). */
function pod(name: string): Pod {
  return {
    metadata: { name, ...(/-d/.test(name) && { deletionTimestamp: "2026-01-01T00:00:00Z" }) },
  } as Pod;
}
const PODS: SurgePods = {
  isUpdated: (p) => p.metadata?.name?.startsWith("new") === true,
  isAvailable: (p) => /-a/.test(p.metadata?.name ?? ""),
  isReady: (p) => /-[ar]/.test(p.metadata?.name ?? ""),
};
const names = (ps: readonly Pod[]) => ps.map((p) => p.metadata?.name);

describe("findUpdatedPodsOnNode (update.go)", () => {
  it("one new and one old pod, deleting ones aside; two of a kind is not ok", () => {
    expect(findUpdatedPodsOnNode([pod("new-a"), pod("old-a"), pod("old-d")], PODS.isUpdated)).toEqual({
      newPod: pod("new-a"),
      oldPod: pod("old-a"),
    });
    expect(findUpdatedPodsOnNode([pod("old-a"), pod("old-1")], PODS.isUpdated)).toBeUndefined();
    expect(findUpdatedPodsOnNode([], PODS.isUpdated)).toEqual({});
  });
});

describe("surgeRollingUpdatePlan (update.go rollingUpdate, maxSurge > 0)", () => {
  const plan = (nodes: Record<string, string[]>, maxSurge: number, shouldNotRun: string[] = []) =>
    surgeRollingUpdatePlan({
      nodeToPods: new Map(Object.entries(nodes).map(([n, ps]) => [n, ps.map(pod)])),
      shouldRun: (n) => !shouldNotRun.includes(n),
      pods: PODS,
      maxSurge,
      desired: Object.keys(nodes).length - shouldNotRun.length,
    });

  it("old available pods are surge candidates, up to maxSurge nodes", () => {
    const p = plan({ n1: ["old-a1"], n2: ["old-a2"], n3: ["old-a3"] }, 2);
    expect(p.newNodesToCreate).toEqual(["n1", "n2"]);
    expect(p.oldPodsToDelete).toEqual([]);
  });

  it("a node whose new pod is not yet available counts against maxSurge", () => {
    const p = plan({ n1: ["old-a1", "new-r1"], n2: ["old-a2"], n3: ["old-a3"] }, 2);
    expect(p.newNodesToCreate).toEqual(["n2"]);
  });

  it("an available new pod retires the old pod on its node", () => {
    const p = plan({ n1: ["old-a1", "new-a1"], n2: ["old-a2"] }, 1);
    expect(names(p.oldPodsToDelete)).toEqual(["old-a1"]);
    expect(p.newNodesToCreate).toEqual(["n2"]);
  });

  it("an unavailable old pod is replaced at once, whatever maxSurge", () => {
    const p = plan({ n1: ["old-1"], n2: ["old-2"], n3: ["old-a3"] }, 1);
    expect(p.newNodesToCreate).toEqual(["n1", "n2", "n3"]);
  });

  it("an unavailable old pod on a node that should not run the set is deleted", () => {
    const p = plan({ n1: ["old-1"], n2: ["new-a2"] }, 1, ["n1"]);
    expect(names(p.oldPodsToDelete)).toEqual(["old-1"]);
    expect(p.newNodesToCreate).toEqual([]);
  });

  it("an available old pod on a node that should not run the set waits until more pods are available than desired", () => {
    // n1 is sunset; n2's new pod is not available yet: 1 available of 1 desired, n1's old pod stays.
    expect(names(plan({ n1: ["old-a1"], n2: ["new-r2"] }, 1, ["n1"]).oldPodsToDelete)).toEqual([]);
    // n2's new pod available: 2 available of 1 desired, n1's old pod goes.
    expect(names(plan({ n1: ["old-a1"], n2: ["new-a2"] }, 1, ["n1"]).oldPodsToDelete)).toEqual(["old-a1"]);
  });

  it("a node with excess pods is left to the manage loop and counts as surging", () => {
    const p = plan({ n1: ["old-a1", "old-a9"], n2: ["old-a2"] }, 1);
    expect(p.newNodesToCreate).toEqual([]);
  });

  it("property: never more nodes surging over available old pods than maxSurge", () => {
    const nodeState = fc.constantFrom<string[]>(["old-a"], ["old-u"], ["new-a"], ["new-r"], ["old-a", "new-r"], []);
    fc.assert(
      fc.property(
        fc.array(nodeState, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        (states, maxSurge) => {
          const nodes = Object.fromEntries(states.map((ps, i) => [`n${i}`, ps.map((x) => `${x}${i}`)]));
          const p = plan(nodes, maxSurge);
          const surging = states.filter((ps) => ps.length === 2).length;
          const fromAvailable = p.newNodesToCreate.filter((n) => nodes[n]?.[0]?.startsWith("old-a")).length;
          expect(surging + fromAvailable).toBeLessThanOrEqual(Math.max(maxSurge, surging));
          // Every node with an unavailable old pod and no new pod gets one.
          for (const [n, ps] of Object.entries(nodes))
            if (ps.length === 1 && ps[0]!.startsWith("old-u")) expect(p.newNodesToCreate).toContain(n);
          // Old pods are deleted only where the node's new pod is available.
          for (const d of p.oldPodsToDelete) {
            const n = Object.entries(nodes).find(([, ps]) => ps.includes(d.metadata?.name ?? ""))!;
            expect(n[1].some((x) => x.startsWith("new-a"))).toBe(true);
          }
        },
      ),
    );
  });
});

describe("excessSurgePods (daemon_controller.go podsShouldBeOnNode with surge)", () => {
  it("keeps the oldest new and the oldest old pod while the old is ready and the new not available", () => {
    expect(names(excessSurgePods([pod("old-a1"), pod("new-r1")], PODS))).toEqual([]);
  });
  it("the old pod goes once the new one is available", () => {
    expect(names(excessSurgePods([pod("old-a1"), pod("new-a1")], PODS))).toEqual(["old-a1"]);
  });
  it("the old pod goes when it is not ready", () => {
    expect(names(excessSurgePods([pod("old-1"), pod("new-1")], PODS))).toEqual(["old-1"]);
  });
  it("all but the oldest of each kind go", () => {
    expect(names(excessSurgePods([pod("old-a1"), pod("new-r1"), pod("old-a2"), pod("new-r2")], PODS))).toEqual([
      "old-a2",
      "new-r2",
    ]);
  });
});
