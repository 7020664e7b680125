// `sim-cluster --controllers` (and `pnpm apiserver --cluster --controllers`) with the workload controllers.
import { describe, expect, it } from "vitest";
import { parseClusterFlags } from "../../packages/sim-cluster/src/cli/cluster-flags.js";
import { CLUSTER_USAGE } from "../../packages/sim-cluster/src/cli/cluster-usage.js";
import { ALL_CLUSTER_CONTROLLERS } from "../../packages/sim-cluster/src/cluster.js";

describe("--controllers with job, ttl-after-finished, cronjob, statefulset, daemonset", () => {
  it("are on by default and may be chosen alone", () => {
    expect(parseClusterFlags([]).controllers).toEqual(ALL_CLUSTER_CONTROLLERS);
    for (const name of ["job", "ttl-after-finished", "cronjob", "statefulset", "daemonset"]) {
      expect(ALL_CLUSTER_CONTROLLERS).toContain(name);
      expect(CLUSTER_USAGE).toContain(name);
    }
    expect(parseClusterFlags(["--controllers=job,cronjob", "--controllers", "statefulset,job"]).controllers).toEqual([
      "statefulset",
      "job",
    ]);
  });

  it("an unknown name is refused, naming it and the known ones", () => {
    expect(() => parseClusterFlags(["--controllers", "job,horizontalpodautoscaling"])).toThrow(
      `--controllers: unknown controller "horizontalpodautoscaling" (known: ${ALL_CLUSTER_CONTROLLERS.join(", ")})`,
    );
  });
});
