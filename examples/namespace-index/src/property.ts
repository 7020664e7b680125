// The property: for every generated history of writes and server faults, the index ends up holding exactly the
// ConfigMaps the server stores, and its handler never throws.
import { type CheckResult, checkInformer, type InvariantReport, serverState } from "@informer-ts/testing";
import type { NamespaceIndex } from "./namespace-index.js";

/** Options of {@link checkNamespaceIndex}. */
export interface CheckNamespaceIndexOptions {
  readonly numRuns?: number;
  readonly seed?: number;
  readonly transport?: "in-process" | "http";
  /** Where the failure story goes (besides the rejection). */
  readonly log?: (text: string) => void;
}

/**
 * Property-tests an index implementation: each generated case gets a fresh index (`make`), registers its handler on
 * the kit's informer, and at quiescence checks the kit's invariants plus `indexMatchesServer`. Rejects with the
 * shrunk failure story when a case breaks them.
 */
export function checkNamespaceIndex(
  make: () => NamespaceIndex,
  options: CheckNamespaceIndexOptions = {},
): Promise<CheckResult> {
  let index = make();
  return checkInformer({
    numRuns: options.numRuns ?? 200,
    seed: options.seed ?? 7,
    ...(options.transport !== undefined && { transport: options.transport }),
    ...(options.log !== undefined && { log: options.log }),
    history: { maxSteps: 12, weights: { writes: 6, time: 2, faults: 4 } },
    // A fresh index for each generated case.
    handler: () => {
      index = make();
      return index.handler;
    },
    invariants: ({ cluster }): InvariantReport[] => {
      const want = new Set(
        serverState(cluster)
          .list("configmaps")
          .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`),
      );
      const got = index.keys();
      const violations = [
        ...[...want].filter((k) => !got.has(k)).map((k) => `the index lacks ${k}`),
        ...[...got].filter((k) => !want.has(k)).map((k) => `the index still holds ${k}, deleted on the server`),
      ];
      return [{ name: "indexMatchesServer", ok: violations.length === 0, violations }];
    },
  });
}
