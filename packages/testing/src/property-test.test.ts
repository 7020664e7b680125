// itProperty / propertyTest: a kit property under a real-time budget below the test's own timeout, its story printed.
import type { KubeObject } from "@informer-ts/apimachinery";
import { metaNamespaceKeyFunc, newStore, Reflector, silentLogger } from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { builtinResources } from "@informer-ts/client";
import { ignoreAlreadyExists } from "@informer-ts/controller";
import { describe, expect, it } from "vitest";
import { type CheckControllerOptions, checkController } from "./check-controller.js";
import { checkSubject } from "./check-subject.js";
import { withoutFcSeed } from "./internal/without-fc-seed.test-util.js";
import { itProperty, propertyTest } from "./property-test.js";
import type { ServerState } from "./server-state.js";

const { configmaps, secrets } = builtinResources;

/** Creates the copy on every reconcile (`fixed` ignores the 409 once it exists). */
const copySetup =
  (fixed: boolean): CheckControllerOptions["setup"] =>
  ({ builder, cluster }) => {
    builder()
      .for(configmaps)
      .complete(async (req, ctx) => {
        const copy = {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: `${req.name}-copy`, namespace: req.namespace },
        };
        const created = cluster.client.create(secrets, copy, {}, ctx.signal);
        await (fixed ? created.catch(ignoreAlreadyExists) : created);
      });
  };
const copied = (state: ServerState) =>
  state
    .list(configmaps)
    .filter((cm) => state.get(secrets, cm.metadata!.namespace!, `${cm.metadata!.name}-copy`) === undefined)
    .map((cm) => `${cm.metadata!.name}-copy is missing`);

describe("itProperty", () => {
  itProperty(
    it,
    "registers a property as a vitest test with its timeout (the fixed copy controller passes)",
    checkController,
    { setup: copySetup(true), converges: copied, history: { faults: false, maxSteps: 8 }, numRuns: 10, seed: 1 },
    { timeoutMs: 120_000, log: () => undefined },
  );

  it("hands the runner the test's timeout and a budget below it", async () => {
    const registered: { name: string; timeoutMs: number; fn: () => Promise<void> }[] = [];
    const seen: number[] = [];
    itProperty(
      (name, fn, timeoutMs) => registered.push({ name, fn, timeoutMs }),
      "p",
      async (o: { timeLimitMs?: number }) => {
        seen.push(o.timeLimitMs!);
        return { numRuns: 1, seed: 1 };
      },
      {},
      { timeoutMs: 10_000 },
    );
    expect(registered.map((r) => [r.name, r.timeoutMs])).toEqual([["p", 10_000]]);
    await registered[0]!.fn();
    expect(seen).toEqual([6_000]);
    expect(() => propertyTest(checkController, {} as CheckControllerOptions, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => propertyTest(checkController, {} as CheckControllerOptions, { budgetShare: 1 })).toThrow(
      /budgetShare/,
    );
  });

  it("a failing property rejects with its story and replay token, also written to the log", async () => {
    const logged: string[] = [];
    const run = propertyTest(
      checkController,
      { setup: copySetup(false), converges: copied, history: { faults: false, maxSteps: 8 }, numRuns: 200, seed: 1 },
      { timeoutMs: 60_000, log: (t) => logged.push(t) },
    );
    const err = await withoutFcSeed(() =>
      run().then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
    );
    expect(err?.message).toMatch(/FC_REPLAY=checkController\/1\/\S+/);
    expect(logged).toEqual([err!.message]);
  }, 120_000);

  it("a property stopped by its budget before any failure says how many cases ran", async () => {
    const logged: string[] = [];
    const run = propertyTest(
      checkSubject,
      {
        property: "budgeted",
        numRuns: 100_000,
        seed: 1,
        history: { faults: false, maxSteps: 4 },
        subject: (c) => {
          const store = newStore<KubeObject>(metaNamespaceKeyFunc);
          const r = new Reflector(c.listerWatcher, undefined, store, { clock: c.cluster.clock, logger: silentLogger });
          const run = startRun(r);
          return { store, hasSynced: () => r.status().hasSynced, stop: () => run.stop() };
        },
      },
      { timeoutMs: 3_000, log: (t) => logged.push(t) },
    );
    await withoutFcSeed(run);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^budgeted: \d+ of 100000 cases ran within the 1800 ms budget \(seed 1\); none failed$/);
  }, 60_000);
});
