import type { KubeObject } from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  Reflector,
  type ReflectorStore,
  silentLogger,
} from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SimStep } from "./arbitraries.js";
import { checkSubject, runSubjectCase, type SubjectCase, type SubjectUnderTest } from "./check-subject.js";
import { withoutFcSeed } from "./internal/without-fc-seed.test-util.js";

/** A bare Reflector into `store` (default a plain store) on the case's lister-watcher, paged by the variant. */
function reflectorInto(store: ReflectorStore<KubeObject> & { list(): KubeObject[] }) {
  return (c: SubjectCase<number>): SubjectUnderTest => {
    const r = new Reflector(c.listerWatcher, undefined, store, {
      clock: c.cluster.clock,
      rand: seededRand(c.seed),
      logger: silentLogger,
      useWatchList: c.useWatchList,
      watchListPageSize: c.variant,
    });
    const run = startRun(r);
    return { store, hasSynced: () => r.status().hasSynced, stop: () => run.stop() };
  };
}

const pageSizes = { variant: fc.constantFrom(0, 2), describeVariant: (n: number) => `watchListPageSize=${n}` };

const put = (name: string, value = 1): SimStep => ({ kind: "put", namespace: "default", name, value });

describe("checkSubject", () => {
  it("passes for a bare Reflector with a generated page size over 40 generated histories", async () => {
    const r = await checkSubject({
      name: "reflector",
      subject: (c) => reflectorInto(newStore<KubeObject>(metaNamespaceKeyFunc))(c),
      ...pageSizes,
      numRuns: 40,
      seed: 4,
    });
    expect(r.numRuns).toBe(40);
  }, 120_000);

  it("finds a planted broken subject (a store that ignores deletes) and prints the shrunk case with its variant", async () => {
    let logged = "";
    const failure = await withoutFcSeed(() =>
      checkSubject({
        name: "reflector",
        subject: (c) => {
          const store = newStore<KubeObject>(metaNamespaceKeyFunc);
          store.delete = () => undefined; // the planted bug
          return reflectorInto(store)(c);
        },
        ...pageSizes,
        numRuns: 100,
        seed: 5,
        log: (t) => {
          logged = t;
        },
      }).then(
        () => undefined,
        (err: unknown) => err as Error,
      ),
    );
    expect(failure).toBeInstanceOf(Error);
    const text = failure?.message ?? "";
    expect(text).toBe(logged);
    expect(text).toMatch(
      /^checkSubject: a generated case broke 1 invariant\(s\)\n {2}replay this case alone: FC_REPLAY=checkSubject\/5\/[\d:]+ \(case seed \d+; the whole search again: FC_SEED=5\)\n/,
    );
    expect(text).toMatch(
      / {2}reflector: (watch-list|list\+watch), watchListPageSize=[02]; history \(\d+ steps, shrunk\):/,
    );
    expect(text).toContain("✗ storeConverges");
    expect(text).toMatch(/the store has [\w-]+\/\w+ \(rv=\d+\), deleted on the server/);
    expect(text).toMatch(/reflector started \((watch-list|list\+watch), in-process\)/);
    // Shrunk to the essence: a few steps, one of them a delete.
    const steps = text.split("\n").filter((l) => l.startsWith("    - "));
    expect(steps.length).toBeLessThanOrEqual(3);
    expect(steps.some((l) => /delete/.test(l))).toBe(true);
  }, 300_000);

  it("checks each registration recorded with recordNotifications, named by its label", async () => {
    const out = await runSubjectCase(
      {
        subject: (c) => {
          const informer = newSharedIndexInformer<KubeObject>(c.listerWatcher, undefined, {
            clock: c.cluster.clock,
            rand: seededRand(c.seed),
            logger: silentLogger,
            reflector: { logger: silentLogger },
          });
          c.recordNotifications(informer, undefined, "quiet");
          c.recordNotifications(
            informer,
            {
              onUpdate: () => {
                throw new Error("planted");
              },
            },
            "thrower",
          );
          const running = informer.run(c.signal);
          return { store: informer.getStore(), hasSynced: () => informer.hasSynced(), stop: () => running };
        },
      },
      { useWatchList: true, seed: 3, steps: [put("a", 1), { kind: "wait", ms: 1500 }, put("a", 2)] },
    );
    const failed = out.reports.filter((r) => !r.ok);
    expect(failed.map((r) => r.name)).toEqual(["handlerNeverThrows (thrower)"]);
    expect(failed[0]!.violations[0]).toMatch(/onUpdate\(default\/a\): planted$/);
    const names = out.reports.map((r) => r.name);
    expect(names).toContain("handlerViewConverges (quiet)");
    expect(names).toContain("syncedHonest (thrower)");
    expect(out.timeline.some((e) => /^update default\/a rv=\d+→\d+ \[quiet\]$/.test(e.text))).toBe(true);
  });

  it("reports a subject that throws while starting, never stops, rejects its stop, or whose invariants throw", async () => {
    const started = await runSubjectCase(
      {
        name: "broken",
        subject: () => {
          throw new Error("no luck");
        },
      },
      { useWatchList: false, seed: 1, steps: [put("a")] },
    );
    expect(started.reports).toEqual([
      { name: "subjectStarts", ok: false, violations: ["broken threw while starting: no luck"] },
    ]);

    const idle = (stop: () => Promise<unknown>): SubjectUnderTest => ({
      store: { list: () => [] },
      hasSynced: () => true,
      stop,
      invariants: () => {
        throw new Error("oops");
      },
    });
    const never = await runSubjectCase(
      { subject: () => idle(() => new Promise(() => undefined)) },
      {
        useWatchList: false,
        seed: 1,
        steps: [],
      },
    );
    const byName = (o: typeof never, n: string) => o.reports.find((r) => r.name === n);
    expect(byName(never, "stops")?.violations).toEqual([
      "subject.stop() did not return within 60 s of virtual time after its signal aborted",
    ]);
    expect(byName(never, "subjectInvariants")?.violations).toEqual(["the invariants threw: oops"]);

    const rejects = await runSubjectCase(
      { subject: () => idle(() => Promise.reject(new Error("stuck"))) },
      {
        useWatchList: false,
        seed: 1,
        steps: [],
      },
    );
    expect(byName(rejects, "stops")?.violations).toEqual(["subject.stop() rejected: stuck"]);
  });

  it("rejects options without a subject", async () => {
    await expect(checkSubject({} as never)).rejects.toThrow(
      "checkSubject: options.subject must be a function (c) => SubjectUnderTest",
    );
  });
});

describe("the step an effect belongs to", () => {
  it("under zero latency the garbage collector's 0-ms delete after a step happens between the steps, not inside the next one", async () => {
    const seen: string[] = [];
    const out = await runSubjectCase(
      {
        latency: "zero",
        subject: async (c) => {
          const owner = await c.cluster.engine.create("configmaps", "default", {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "owner", namespace: "default" },
          });
          const ref = {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "owner",
            uid: owner.metadata!.uid!,
            controller: true,
          };
          await c.cluster.engine.create("configmaps", "default", {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "child", namespace: "default", ownerReferences: [ref] },
          });
          c.cluster.engine.garbageCollector?.onAction((a) =>
            seen.push(
              `${a.text} after ${c.stepsApplied()} steps${c.applyingStep() ? ", while a step was applied" : ""}`,
            ),
          );
          return reflectorInto(newStore<KubeObject>(metaNamespaceKeyFunc))({ ...c, variant: 0 });
        },
      },
      { useWatchList: false, seed: 1, steps: [{ kind: "delete", namespace: "default", name: "owner" }, put("x")] },
    );
    expect(out.reports.filter((r) => !r.ok)).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/child.* after 1 steps$/);
  }, 60_000);
});

describe("checkSubject: the quiet phase's early give-up (noProgressWithinMs)", () => {
  const ignoresDeletes = (c: SubjectCase<number>) => {
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    store.delete = () => undefined; // the planted bug: the case can never converge
    return reflectorInto(store)(c);
  };
  const steps: SimStep[] = [put("a"), { kind: "delete", namespace: "default", name: "a" }];
  const input = { useWatchList: false, steps, seed: 3, variant: 0 };
  const lastAt = (o: { timeline: readonly { at: number }[] }) => Math.max(...o.timeline.map((e) => e.at));
  const gaveUp = (o: { timeline: readonly { kind: string; text: string }[] }) =>
    o.timeline.filter((e) => e.kind === "phase" && e.text.startsWith("the case cannot converge"));

  it("a subject stuck with a wrong store ends the case after the window, not 15 virtual minutes", async () => {
    const out = await runSubjectCase({ subject: ignoresDeletes }, input);
    expect(out.reports.filter((r) => !r.ok).map((r) => r.name)).toEqual(["storeConverges"]);
    expect(gaveUp(out)).toHaveLength(1);
    expect(gaveUp(out)[0]!.text).toMatch(
      /neither the server's state nor the subject's changed since @\d+ nor after the compaction that covered it at @\d+ \(noProgressWithinMs 120000\)/,
    );
    expect(out.timeline.some((e) => e.text.startsWith("did not converge"))).toBe(false);
    // The delete lands in the first few virtual seconds; the compaction at 10 virtual minutes covers it (the one at 5
    // compacts up to the revision of the check before); then the window, the give-up and the stop — not 15 minutes.
    expect(lastAt(out)).toBeGreaterThanOrEqual(600_000 + 120_000);
    expect(lastAt(out)).toBeLessThan(800_000);
    const shorter = await runSubjectCase({ subject: ignoresDeletes, noProgressWithinMs: 30_000 }, input);
    expect(gaveUp(shorter)).toHaveLength(1);
    expect(lastAt(shorter)).toBeLessThan(700_000);
    // Without the give-up (a window longer than the quiet phase) the case waits out convergeWithinMs.
    const full = await runSubjectCase({ subject: ignoresDeletes, noProgressWithinMs: 20 * 60_000 }, input);
    expect(gaveUp(full)).toHaveLength(0);
    expect(full.timeline.some((e) => e.text.startsWith("did not converge"))).toBe(true);
    expect(lastAt(full)).toBeGreaterThan(10 * 60_000);
    await expect(runSubjectCase({ subject: ignoresDeletes, noProgressWithinMs: 0 }, input)).rejects.toThrow(
      /checkSubject: noProgressWithinMs must be a number > 0, got 0/,
    );
  }, 120_000);

  it("a correct subject converges without giving up, even with a window shorter than a relist's backoff", async () => {
    const subject = (c: SubjectCase<number>) => reflectorInto(newStore<KubeObject>(metaNamespaceKeyFunc))(c);
    const out = await runSubjectCase({ subject, noProgressWithinMs: 1 }, input);
    expect(out.reports.filter((r) => !r.ok)).toEqual([]);
    expect(gaveUp(out)).toHaveLength(0);
  }, 60_000);
});
