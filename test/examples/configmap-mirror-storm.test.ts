// The storm issue #20 found in examples/configmap-mirror, kept as a regression test. Its first reconcile logic created
// the Secret whenever it was absent from the cache ("create if absent from the cache", with setControllerReference
// and .owns(secrets)). After a very short watch the ConfigMap informer backs off (client-go: 800 ms × [1, 2)) before
// relisting; a ConfigMap deleted in that window stays in its cache, the garbage collector deletes its Secret, that
// delete enqueues the ConfigMap, the reconcile re-creates the Secret from the stale cache, the collector deletes it
// again… With zero latency the loop runs at one virtual instant until the storm detection stops it; with the modelled
// latency it is bounded by the stale window (a round trip of ~7 virtual ms) and still far above the storm rate. The
// example now confirms the owner with a live read before creating its child, and converges under both.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import { setControllerReference } from "@informer-ts/controller";
import {
  type CheckControllerOptions,
  type ControllerCase,
  type ControllerCaseInput,
  formatControllerFailure,
  runControllerCase,
  type SimStep,
  type SimTransport,
} from "@informer-ts/testing";
import { describe, expect, it } from "vitest";
import {
  MIRROR_LABEL,
  mirrorName,
  secretData,
  setupMirrorController,
} from "../../examples/configmap-mirror/src/mirror-controller.js";
import { mirrored } from "./configmap-mirror-predicate.js";

const { configmaps, secrets } = builtinResources;

/** The example's first reconcile: creates the child whenever the cache lacks it (the pattern that churns). */
function createIfAbsentFromCache({ builder, manager, cluster }: ControllerCase): void {
  const cms = manager.informerFor(configmaps);
  const cache = manager.informerFor(secrets);
  builder()
    .named("configmap-mirror")
    .for(configmaps)
    .owns(secrets)
    .complete(async (req, ctx) => {
      const cm = cms.getIndexer().getByKey(`${req.namespace}/${req.name}`);
      if (cm === undefined || cm.metadata?.labels?.[MIRROR_LABEL] !== "true") return;
      const name = mirrorName(req.name);
      if (cache.getIndexer().getByKey(`${req.namespace}/${name}`) !== undefined) return;
      const secret: KubeObject = { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: req.namespace } };
      secret.data = secretData(cm);
      setControllerReference(cm, secret, { ownerType: configmaps });
      await cluster.client.create(secrets, secret, {}, ctx.signal);
    });
}

const example = ({ manager, cluster, builder }: ControllerCase) => {
  setupMirrorController(manager, cluster.client, builder);
};

const enable = (namespace: string): SimStep => ({
  kind: "set-label",
  namespace,
  name: "a",
  key: MIRROR_LABEL,
  value: "true",
});
const drop: SimStep = { kind: "drop-watches", asError: false };

/** The shrunk story (FC_SEED=526189477, case 36): the second drop ends the watch just reopened (0 events). */
const zeroLatencyStory = [
  enable("team-a"),
  drop,
  drop,
  { kind: "delete", namespace: "team-a", name: "a" },
  enable("default"),
];
/** The same under the modelled latency, where a re-watch takes a few ms: the second drop comes 500 ms later. */
const modelledStory = zeroLatencyStory as SimStep[];

const run = (setup: CheckControllerOptions["setup"], input: ControllerCaseInput, o: Partial<CheckControllerOptions>) =>
  runControllerCase({ setup, converges: mirrored, ...o }, input);
const failed = (o: { reports: readonly { ok: boolean; name: string }[] }) =>
  o.reports.filter((r) => !r.ok).map((r) => r.name);

describe("examples/configmap-mirror: the stale-cache storm (issue #20)", () => {
  it("zero latency: the loop runs at one virtual instant (1,162 ms) until reconcileStorm stops it", async () => {
    const input = { useWatchList: false, seed: 2, steps: zeroLatencyStory as SimStep[] };
    const out = await run(createIfAbsentFromCache, input, { latency: "zero" });
    expect(failed(out)).toContain("reconcileStorm");
    const storm = out.reconciles.filter((r) => r.key === "team-a/a");
    expect(storm.length).toBeGreaterThan(50);
    // Every reconcile of the loop starts at the instant the Secret informer relisted, before the ConfigMap relist.
    const looping = storm.filter((r) => r.startedAt > 0);
    expect(new Set(looping.map((r) => r.startedAt))).toEqual(new Set([1162]));
    expect(out.timeline.some((e) => e.text.startsWith("list /api/v1/secrets?resourceVersion=4") && e.at === 1162)).toBe(
      true,
    );
  });

  it("modelled latency: the churn is bounded by the stale window, and still a reconcileStorm", async () => {
    const out = await run(createIfAbsentFromCache, { useWatchList: false, seed: 2, steps: modelledStory }, {});
    // Once it storms the reconcilers are no longer called, so the mirrors are left wrong too.
    expect(failed(out)).toEqual(["controllerConverges", "reconcileStorm"]);
    const storm = out.reconciles.filter((r) => r.key === "team-a/a" && r.startedAt > 1000);
    // The story is short and shows both halves of the loop: the collector's deletes and the caches' notifications.
    const story = formatControllerFailure(2, { useWatchList: false, seed: 2, steps: modelledStory }, out);
    expect(story.split("\n").length).toBeLessThan(120);
    expect(story).toContain(
      "simulator    garbage-collector: deleted secrets team-a/a-mirror (Background): its owner ConfigMap a is gone",
    );
    expect(story).toContain("notification secrets delete team-a/a-mirror");
    expect(story).toMatch(/⋯ +the same \d+ lines ×\d+ more, from [\d,]+ ms to [\d,]+ ms/);
    // One create → collector delete → reconcile round trip takes several virtual ms, not zero.
    const span = storm.at(-1)!.startedAt - storm[0]!.startedAt;
    expect(span / storm.length).toBeGreaterThan(2);
  });

  for (const transport of ["in-process", "http"] as SimTransport[]) {
    it(`the example (live read before create) converges under both stories, ${transport}`, async () => {
      for (const [steps, latency] of [
        [zeroLatencyStory, "zero"],
        [modelledStory, "modelled"],
      ] as const) {
        for (const seed of [2, 3]) {
          const out = await run(
            example,
            { useWatchList: false, seed, steps: steps as SimStep[] },
            { latency, transport },
          );
          expect({ seed, latency, failed: failed(out) }).toEqual({ seed, latency, failed: [] });
          expect(out.reconciles.filter((r) => r.key === "team-a/a").length).toBeLessThan(10);
        }
      }
    }, 120_000);
  }
});
