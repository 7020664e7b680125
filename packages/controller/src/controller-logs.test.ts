// The controller's logs: `Reconciler error` once per failed reconcile with controller-runtime's keys, and each
// reconcile's `ctx.log` carrying them (log.FromContext), with a reconcileID per reconcile.
import { runUntilSettled } from "@informer-ts/cache/testing";
import type { LogFields, Logger, LogLevel } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { newControllerManagedBy } from "./builder.js";
import { obj, parents, testEnv, turns } from "./controller.test-util.js";
import { TerminalError } from "./reconciler.js";

function capture(): { logger: Logger; lines: { level: LogLevel; msg: string; fields: LogFields }[] } {
  const lines: { level: LogLevel; msg: string; fields: LogFields }[] = [];
  return { lines, logger: { log: (level, msg, fields = {}) => lines.push({ level, msg, fields }) } };
}

describe("Controller logs", () => {
  it("ctx.log carries controller, group, kind, namespace, name and the reconcile's own reconcileID", async () => {
    const env = testEnv();
    const { logger, lines } = capture();
    const ids: string[] = [];
    let calls = 0;
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .withOptions({ logger })
      .complete((_req, ctx) => {
        ids.push(ctx.reconcileID);
        ctx.log.log("info", "reconciling", { step: 1 });
        if (++calls === 1) throw new Error("boom");
        if (calls === 2) throw new TerminalError("give up");
      });
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    env.source(parents).add(obj("a"));
    await turns();
    await env.clock.step(100);
    await turns();
    expect(calls).toBe(2);
    expect(new Set(ids).size).toBe(2);
    const keys = { controller: "parent", controllerGroup: "example.com", controllerKind: "Parent" };
    const mine = lines.filter((l) => l.msg === "reconciling");
    expect(mine).toEqual(
      ids.map((reconcileID) => ({
        level: "info",
        msg: "reconciling",
        fields: { ...keys, namespace: "default", name: "a", reconcileID, step: 1 },
      })),
    );
    const errors = lines.filter((l) => l.msg === "Reconciler error");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ level: "error", fields: { ...keys, name: "a", reconcileID: ids[0] } });
    expect((errors[0]?.fields.error as Error | undefined)?.message).toBe("boom");
    expect(errors[1]).toMatchObject({ fields: { reconcileID: ids[1], terminal: true } });
    expect(lines.filter((l) => l.msg === "Starting workers")).toMatchObject([{ fields: { ...keys, workerCount: 1 } }]);
    ac.abort();
    await runUntilSettled(env.clock, run);
    await env.stop();
  });

  it("a requeue storm (requeue: true every time) is logged at 8, 16, 32… requeues in a row", async () => {
    const env = testEnv();
    const { logger, lines } = capture();
    let calls = 0;
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .withOptions({ logger })
      .complete(() => {
        calls++;
        return { requeue: true };
      });
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    env.source(parents).add(obj("a"));
    for (let i = 0; i < 40 && calls < 40; i++) {
      await turns();
      await env.clock.step(1_000_000); // the per-key backoff caps at 1000 s
    }
    expect(calls).toBeGreaterThanOrEqual(33);
    const storms = lines.filter((l) => l.msg.startsWith("Reconcile keeps being requeued"));
    expect(storms.map((l) => l.fields.retries)).toEqual([8, 16, 32]);
    expect(storms[0]).toMatchObject({ level: "warn", fields: { controller: "parent", name: "a" } });
    ac.abort();
    await runUntilSettled(env.clock, run);
    await env.stop();
  });
});
