// What examples/configmap-mirror must make true of the server once it is quiet (its property and storm tests).

import { builtinResources } from "@informer-ts/client";
import type { ServerState } from "@informer-ts/testing";
import { MIRROR_LABEL, mirrorName, secretData } from "../../examples/configmap-mirror/src/mirror-controller.js";

const { configmaps, secrets } = builtinResources;

/** Labelled ConfigMaps have an up-to-date mirror; no other mirror exists. */
export function mirrored(state: ServerState): string[] {
  const out: string[] = [];
  for (const cm of state.list(configmaps)) {
    const ns = cm.metadata!.namespace!;
    const name = mirrorName(cm.metadata!.name!);
    const s = state.get(secrets, ns, name);
    const want = cm.metadata?.labels?.[MIRROR_LABEL] === "true";
    if (want && s === undefined) out.push(`${ns}/${name} is missing`);
    else if (want && JSON.stringify(s!.data ?? {}) !== JSON.stringify(secretData(cm)))
      out.push(`${ns}/${name} is stale`);
    else if (!want && s !== undefined) out.push(`${ns}/${name} exists but its ConfigMap is not labelled`);
  }
  for (const s of state.list(secrets)) {
    const n = s.metadata!.name!;
    if (!n.endsWith("-mirror")) continue;
    if (state.get(configmaps, s.metadata!.namespace!, n.slice(0, -"-mirror".length)) === undefined) {
      out.push(`${s.metadata!.namespace}/${n} outlived its ConfigMap`);
    }
  }
  return out;
}
