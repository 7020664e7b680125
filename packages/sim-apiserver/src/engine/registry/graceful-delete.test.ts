import { fc, test } from "@fast-check/vitest";
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { podGracePeriod } from "./graceful-delete.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function setup() {
  const clock = new FakeClock(T0);
  const engine = new SimApiServer({ clock, rand: seededRand(5), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  return { clock, engine };
}

function pod(name: string, spec: Record<string, unknown>): KubeObject {
  return { metadata: { name }, spec: { containers: [{ name: "c", image: "i" }], ...spec } };
}

describe("podGracePeriod (pkg/registry/core/pod/strategy_test.go TestCheckGracefulDelete)", () => {
  const withGrace = { nodeName: "n1", terminationGracePeriodSeconds: 30 };
  it.each([
    ["in pending phase with has node name", withGrace, "Pending", {}, 30],
    ["in failed phase", withGrace, "Failed", {}, 0],
    ["in failed phase with has node name", withGrace, "Failed", {}, 0],
    ["in succeeded phase", withGrace, "Succeeded", {}, 0],
    ["no phase", withGrace, undefined, {}, 30],
    ["has negative grace period", { nodeName: "n1", terminationGracePeriodSeconds: -1 }, undefined, {}, -1],
    ["not bound to a node", { terminationGracePeriodSeconds: 30 }, "Pending", {}, 0],
    ["the request's grace period wins", withGrace, "Running", { gracePeriodSeconds: 31 }, 31],
  ] as const)("%s", (_name, spec, phase, opts, want) => {
    const p: KubeObject = {
      metadata: { name: "p" },
      spec: { ...spec },
      ...(phase !== undefined && { status: { phase } }),
    };
    expect(podGracePeriod(p, opts)).toBe(want);
  });
});

describe("graceful deletion of pods (rest.BeforeDelete + CheckGracefulDelete)", () => {
  it("a bound pod deleted with gracePeriodSeconds 31 stays, MODIFIED with deletionTimestamp and grace, until grace 0", async () => {
    const { engine } = setup();
    const created = await engine.create("pods", "default", pod("web", { nodeName: "node-1" }));
    const w = await engine.watch("pods", "default", { resourceVersion: created.metadata!.resourceVersion! });
    const kept = await engine.delete("pods", "default", "web", { gracePeriodSeconds: 31 });
    expect(kept.metadata).toMatchObject({ deletionTimestamp: "2026-01-01T00:00:31Z", deletionGracePeriodSeconds: 31 });
    const ev = (await w.next()).value as WatchEvent;
    expect([ev.type, (ev.object as KubeObject).metadata?.deletionGracePeriodSeconds]).toEqual(["MODIFIED", 31]);
    expect((await engine.get("pods", "default", "web")).metadata?.deletionTimestamp).toBe("2026-01-01T00:00:31Z");
    // A longer grace period changes nothing (pending): same resourceVersion.
    const again = await engine.delete("pods", "default", "web", { gracePeriodSeconds: 60 });
    expect(again.metadata?.resourceVersion).toBe(kept.metadata?.resourceVersion);
    // The kubelet confirms: grace 0 writes the shortened deletion (MODIFIED, grace 0), then deletes it.
    await engine.delete("pods", "default", "web", { gracePeriodSeconds: 0 });
    const confirmed = (await w.next()).value as WatchEvent;
    expect([confirmed.type, (confirmed.object as KubeObject).metadata?.deletionGracePeriodSeconds]).toEqual([
      "MODIFIED",
      0,
    ]);
    expect(((await w.next()).value as WatchEvent).type).toBe("DELETED");
    w.stop();
    engine.stop();
  });

  it("a shorter grace period moves the deletion timestamp back by the difference", async () => {
    const { engine } = setup();
    await engine.create("pods", "default", pod("web", { nodeName: "node-1" }));
    await engine.delete("pods", "default", "web", { gracePeriodSeconds: 30 });
    const shorter = await engine.delete("pods", "default", "web", { gracePeriodSeconds: 10 });
    expect(shorter.metadata).toMatchObject({
      deletionTimestamp: "2026-01-01T00:00:10Z",
      deletionGracePeriodSeconds: 10,
    });
    engine.stop();
  });

  it("the pod is deleted when its grace period ends on the engine's clock", async () => {
    const { clock, engine } = setup();
    await engine.create("pods", "default", pod("web", { nodeName: "node-1", terminationGracePeriodSeconds: 5 }));
    await engine.delete("pods", "default", "web");
    expect(engine.gracefulDeletion?.pending).toBe(1);
    await clock.step(4_999);
    expect((await engine.list("pods", "default")).items).toHaveLength(1);
    await clock.step(1);
    expect((await engine.list("pods", "default")).items).toHaveLength(0);
    expect(engine.gracefulDeletion?.pending).toBe(0);
    engine.stop();
  });

  it("an unbound pod, a finished pod and other kinds go at once", async () => {
    const { engine } = setup();
    await engine.create("pods", "default", pod("unbound", {}));
    // Grace period 0 (no node): the deleted pod carries the deletion timestamp written just before its delete.
    expect((await engine.delete("pods", "default", "unbound", { gracePeriodSeconds: 30 })).metadata).toMatchObject({
      deletionTimestamp: "2026-01-01T00:00:00Z",
      deletionGracePeriodSeconds: 0,
    });
    await engine.create("configmaps", "default", { metadata: { name: "cm" } });
    await engine.delete("configmaps", "default", "cm", { gracePeriodSeconds: 30 });
    expect((await engine.list("pods", "default")).items).toEqual([]);
    expect((await engine.list("configmaps", "default")).items).toEqual([]);
    engine.stop();
  });

  it("a grace-period-0 pod delete sends MODIFIED (deletionTimestamp, grace 0) then DELETED (store.go updateForGracefulDeletionAndFinalizers)", async () => {
    const { engine } = setup();
    const created = await engine.create("pods", "default", pod("web", { nodeName: "node-1" }));
    const w = await engine.watch("pods", "default", { resourceVersion: created.metadata!.resourceVersion! });
    const gone = await engine.delete("pods", "default", "web", { gracePeriodSeconds: 0 });
    const marked = (await w.next()).value as WatchEvent;
    const deleted = (await w.next()).value as WatchEvent;
    expect([marked.type, deleted.type]).toEqual(["MODIFIED", "DELETED"]);
    expect((marked.object as KubeObject).metadata).toMatchObject({
      deletionTimestamp: "2026-01-01T00:00:00Z",
      deletionGracePeriodSeconds: 0,
    });
    expect((deleted.object as KubeObject).metadata?.resourceVersion).toBe(gone.metadata?.resourceVersion);
    expect(Number(gone.metadata?.resourceVersion)).toBe(Number(created.metadata?.resourceVersion) + 2);
    await expect(engine.get("pods", "default", "web")).rejects.toMatchObject({ status: { code: 404 } });
    w.stop();
    engine.stop();
  });

  it("a grace-period-0 delete of a pod with a finalizer only marks it (deletionTimestamp, grace 0)", async () => {
    const { engine } = setup();
    await engine.create("pods", "default", {
      ...pod("held", { nodeName: "node-1" }),
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    });
    const kept = await engine.delete("pods", "default", "held", { gracePeriodSeconds: 0 });
    expect(kept.metadata).toMatchObject({ deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 0 });
    expect((await engine.get("pods", "default", "held")).metadata?.deletionTimestamp).toBeDefined();
    engine.stop();
  });

  it("removing the last finalizer of a pod in its grace period does not delete it", async () => {
    const { engine } = setup();
    const p = pod("web", { nodeName: "node-1" });
    p.metadata!.finalizers = ["example.com/hold"];
    await engine.create("pods", "default", p);
    const kept = await engine.delete("pods", "default", "web", { gracePeriodSeconds: 30 });
    const { finalizers: _f, ...meta } = kept.metadata!;
    const updated = await engine.update("pods", "default", "web", { ...kept, metadata: meta });
    expect(updated.metadata?.deletionGracePeriodSeconds).toBe(30);
    await engine.delete("pods", "default", "web", { gracePeriodSeconds: 0 });
    expect((await engine.list("pods", "default")).items).toEqual([]);
    engine.stop();
  });
});

describe("graceful deletion as a property", () => {
  type Op =
    | { readonly kind: "delete"; readonly grace: number | undefined }
    | { readonly kind: "step"; readonly ms: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant("delete" as const),
      grace: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    }),
    fc.record({ kind: fc.constant("step" as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
  );

  test.prop([fc.integer({ min: 0, max: 60 }), fc.array(op, { maxLength: 10 })], { numRuns: 60 })(
    "the deletion timestamp only moves earlier, and a bound pod goes exactly on a grace-0 delete or once the clock passed it",
    async (termination, ops) => {
      const { clock, engine } = setup();
      await engine.create("pods", "default", pod("p", { nodeName: "n", terminationGracePeriodSeconds: termination }));
      let deadline: number | undefined;
      let gone = false;
      for (const o of ops) {
        if (o.kind === "step") {
          await clock.step(o.ms);
          // The engine's timer at the deadline runs when the clock reaches it.
          if (deadline !== undefined && clock.now() >= deadline) gone = true;
        } else if (!gone) {
          await engine.delete("pods", "default", "p", o.grace === undefined ? {} : { gracePeriodSeconds: o.grace });
          const first = deadline === undefined;
          const period = o.grace ?? (first ? termination : undefined);
          if (period === 0) gone = true;
        }
        const live = await engine.get("pods", "default", "p").catch(() => undefined);
        expect(live === undefined, JSON.stringify({ o, deadline, now: clock.now() })).toBe(gone);
        if (live !== undefined && live.metadata?.deletionTimestamp !== undefined) {
          const ts = Date.parse(live.metadata.deletionTimestamp);
          if (deadline !== undefined) expect(ts).toBeLessThanOrEqual(deadline);
          deadline = ts;
        }
      }
      engine.stop();
    },
  );
});
