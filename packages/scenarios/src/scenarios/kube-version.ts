// The Kubernetes versions whose request routing the simulated apiserver reproduces, for the studies' --kube-version.
import type { SimApiServerOptions } from "@informer-ts/sim-apiserver";

/** The versions `--kube-version` accepts. */
export const KUBE_VERSIONS = ["1.22", "1.28", "1.31", "1.33", "1.34"] as const;

/** One of {@link KUBE_VERSIONS}. */
export type KubeVersion = (typeof KUBE_VERSIONS)[number];

/** The simulator's options that make it route reads as kube-apiserver `version` does. */
export function simOptionsForVersion(
  version: KubeVersion,
): Pick<SimApiServerOptions, "listFromCacheSnapshot" | "watchList"> {
  return { listFromCacheSnapshot: version === "1.34", watchList: version === "1.33" || version === "1.34" };
}
