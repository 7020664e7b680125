// examples/configmap-mirror under its own property: generated histories that set and remove the label it reads
// (mirror.example.com/enabled), with writes, deletes, re-creates and every server fault, under the modelled latency.
import { checkController } from "@informer-ts/testing";
import { describe, expect, it } from "vitest";
import { MIRROR_LABEL, setupMirrorController } from "../../examples/configmap-mirror/src/mirror-controller.js";
import { mirrored } from "./configmap-mirror-predicate.js";

const RUNS = 200;

describe("examples/configmap-mirror under checkController", () => {
  it(`mirrors exactly the labelled ConfigMaps over ${RUNS} generated histories with faults`, async () => {
    const started = process.cpuUsage();
    const r = await checkController({
      property: "configmap-mirror",
      numRuns: RUNS,
      seed: 1,
      history: { labels: { [MIRROR_LABEL]: ["true", "false", undefined] } },
      setup: ({ manager, cluster, builder }) => {
        setupMirrorController(manager, cluster.client, builder);
      },
      converges: mirrored,
      timeLimitMs: 240_000,
    });
    const cpu = process.cpuUsage(started);
    console.log(`configmap-mirror property: ${r.numRuns} cases, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`);
    expect(r).toEqual({ numRuns: RUNS, seed: 1 });
  }, 300_000);
});
