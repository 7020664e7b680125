// The cluster's `logger` option reaches every controller it runs (each `Controller` and the manager's informers), so
// its level holds and nothing falls back to the process's JSON runtime logger.
import { newLineLogger } from "@informer-ts/instrumentation";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const startingControllers = (lines: readonly string[]) =>
  lines
    .filter((l) => l.startsWith("I sim-cluster: Starting Controller"))
    .map((l) => /controller="([^"]+)"/.exec(l)?.[1])
    .sort();

describe("sim-cluster logger", () => {
  it("every controller of the cluster logs through the cluster's logger", async () => {
    const lines: string[] = [];
    c = await createSimCluster({ cluster: { nodes: 1, logger: newLineLogger("sim-cluster", (l) => lines.push(l)) } });
    await c.settle({ maxMs: 60_000, until: () => startingControllers(lines).length >= 14 });
    // Every controller the cluster runs by default, each once.
    expect(startingControllers(lines)).toEqual([
      "cronjob-controller",
      "daemonset-controller",
      "deployment",
      "disruption",
      "endpoint-controller",
      "endpointslice",
      "job-controller",
      "job-orphan-pod-controller",
      "replicaset-controller",
      "replication-controller",
      "root-ca-cert-publisher",
      "serviceaccount",
      "statefulset-controller",
      "ttl-after-finished-controller",
    ]);
  });
});
