// A field-selector informer through a property (issue #20): the subject caches the Pods whose `status.phase` is
// Running; histories from `history.resources` move Pods in and out of that selection with status writes, and the
// kit compares the subject's cache with the server's filtered view (`serverView`). The server-side selector passes;
// a client-side filter that ignores the update moving a Pod out of the selection is found with a short story.
import type { KubeObject } from "@informer-ts/apimachinery";
import { newSharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { builtinResources, listWatchFor } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkInformer } from "./check-informer.js";
import { checkSubject, type ServerView, type SubjectCase, type SubjectUnderTest } from "./check-subject.js";
import { withoutFcSeed } from "./internal/without-fc-seed.test-util.js";

const { pods } = builtinResources;
const running = (o: KubeObject) => (o as { status?: { phase?: string } }).status?.phase === "Running";
/** The server's filtered view: what `fieldSelector=status.phase=Running` selects, judged here without the server. */
const runningPods: ServerView = (state) => state.list(pods).filter(running);
const phases = ["Pending", "Running", "Succeeded"];
const history = {
  maxSteps: 20,
  namespaces: ["default"],
  // One Pod name, Pod steps three times as often as the ConfigMap writes, and the phase written both as a field step
  // and by "another controller": a move out of the selection needs a create, Running, then another phase.
  resources: [
    {
      resource: pods,
      names: ["a"],
      weight: 24,
      status: fc.record({ phase: fc.constantFrom(...phases) }),
      fields: { "status.phase": phases },
    },
  ],
};

/**
 * A cache of the Running Pods kept by a handler on an informer of every Pod — the client-side filter a user writes
 * when the server cannot select. `forgetsMoveOut` plants the bug: an update that leaves the selection is ignored.
 */
function clientSideFilter(forgetsMoveOut: boolean) {
  return (c: SubjectCase): SubjectUnderTest => {
    const informer = newSharedIndexInformer<KubeObject>(listWatchFor(c.cluster.client, pods), undefined, {
      clock: c.cluster.clock,
      rand: seededRand(c.seed),
      logger: silentLogger,
      reflector: { useWatchList: c.useWatchList, logger: silentLogger },
    });
    const selected = new Map<string, KubeObject>();
    const key = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
    informer.addEventHandler({
      onAdd: (o) => {
        if (running(o)) selected.set(key(o), o);
      },
      onUpdate: (_old, o) => {
        if (running(o)) selected.set(key(o), o);
        else if (!forgetsMoveOut) selected.delete(key(o));
      },
      onDelete: (o) => {
        const obj = (o as { obj?: KubeObject }).obj ?? (o as KubeObject);
        selected.delete(key(obj));
      },
    });
    const run = informer.run(c.signal);
    return { store: { list: () => [...selected.values()] }, hasSynced: () => informer.hasSynced(), stop: () => run };
  };
}

describe("a field-selector informer through a property", () => {
  it("an informer with fieldSelector status.phase=Running converges to the server's filtered view, under faults", async () => {
    const r = await withoutFcSeed(() =>
      checkInformer({
        informer: (c) =>
          newSharedIndexInformer<KubeObject>(
            listWatchFor(c.cluster.client, pods, { fieldSelector: "status.phase=Running" }),
            undefined,
            {
              clock: c.cluster.clock,
              logger: silentLogger,
              reflector: { useWatchList: c.useWatchList, logger: silentLogger },
            },
          ),
        serverView: runningPods,
        history,
        numRuns: 40,
        seed: 3,
      }),
    );
    expect(r.numRuns).toBe(40);
  }, 300_000);

  it("a client-side filter that ignores the update moving a Pod out of the selection is found; the fixed one passes", async () => {
    const err = await withoutFcSeed(() =>
      checkSubject({
        name: "running-pods",
        subject: clientSideFilter(true),
        serverView: runningPods,
        history: { ...history, faults: false },
        numRuns: 100,
        seed: 1,
      }).then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
    );
    expect(err, "the planted bug was not found").toBeInstanceOf(Error);
    const text = err!.message;
    expect(text).toMatch(/✗ storeConverges/);
    // The pod still exists on the server: it only left the selection, and the violation says so.
    expect(text).toMatch(/which is not in the serverView selection \(it left the selection or was deleted/);
    expect(text).not.toMatch(/deleted on the server$/m);
    // The shrunk story sets the phase to Running, then to something else: the move out of the selection.
    const story = text.slice(text.indexOf("history ("), text.indexOf("✗"));
    expect(story).toMatch(/pods default\/a .*Running[\s\S]*pods default\/a .*(Pending|Succeeded)/);
    const steps = Number(/history \((\d+) steps, shrunk\)/.exec(text)![1]);
    expect(steps).toBeLessThanOrEqual(3);
    expect(text.split("\n").length).toBeLessThan(120);
    const found = Number(/found at case (\d+)/.exec(text)![1]);
    console.log(
      `planted bug ${JSON.stringify({ property: "running-pods", found, steps, lines: text.split("\n").length })}`,
    );
    const fixed = await withoutFcSeed(() =>
      checkSubject({
        name: "running-pods",
        subject: clientSideFilter(false),
        serverView: runningPods,
        history,
        numRuns: 40,
        seed: 1,
      }),
    );
    expect(fixed.numRuns).toBe(40);
  }, 300_000);
});
