// What the kit-based reflector properties (reflector-sim-property, reflector-sim-order) share: the expected type, the
// fault-heavy history shape, and the ConfigMaps that exist before a subject starts.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { HistoryOptions, SimCluster } from "@informer-ts/testing";

export const CONFIGMAP_TYPE: KubeObject = { apiVersion: "v1", kind: "ConfigMap" };

/** As many faults as writes (the kit's default leans on writes): these suites are about surviving faults. */
export const history: HistoryOptions = { weights: { writes: 6, time: 3, faults: 6 } };

/** `prepare`: `n` ConfigMaps in `default` before the subject starts (through the engine: not in the request log). */
export const seedObjects =
  (n: number) =>
  async (cluster: SimCluster): Promise<void> => {
    for (let i = 0; i < n; i++) {
      await cluster.engine.create("configmaps", "default", {
        metadata: { name: `seed-${i}`, namespace: "default" },
        data: { v: "seed" },
      });
    }
  };
