import { createHash } from "node:crypto";
import { compareKubeVersions } from "../engine/kube-aware-version.js";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "../engine/kube-version.js";
import type { StoredAs } from "../engine/resources.js";
import type { ServedResource } from "../engine/served-resource.js";

export { compareKubeVersions };

/** The version the simulated server reports (`/version`): v1.34, the behaviour baseline of the simulator. */
export const SIM_VERSION_INFO = Object.freeze({
  major: "1",
  minor: "34",
  emulationMajor: "1",
  emulationMinor: "34",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "33",
  gitVersion: "v1.34.0-informer-ts-sim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "go1.24.0",
  compiler: "gc",
  platform: "linux/amd64",
});

/**
 * What `/version` answers for a simulator reproducing `kubeVersion`'s routing: {@link SIM_VERSION_INFO} for 1.34;
 * for older releases their major/minor and `gitVersion` (`v1.22.0-informer-ts-sim`), without the emulation and
 * min-compatibility fields 1.34 added (so kubectl's version-skew warning is the one a real server of that release
 * would cause).
 */
export function simVersionInfo(kubeVersion: KubeVersion = DEFAULT_KUBE_VERSION): Readonly<Record<string, string>> {
  if (kubeVersion === DEFAULT_KUBE_VERSION) return SIM_VERSION_INFO;
  const {
    emulationMajor: _em,
    emulationMinor: _en,
    minCompatibilityMajor: _cm,
    minCompatibilityMinor: _cn,
    ...rest
  } = SIM_VERSION_INFO;
  const [major, minor] = kubeVersion.split(".") as [string, string];
  return Object.freeze({ ...rest, major, minor, gitVersion: `v${kubeVersion}.0-informer-ts-sim` });
}

/** `groupVersion` string: `v1` for the core group, `<group>/<version>` otherwise. */
export function groupVersionString(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** `GET /api`: `APIVersions` with the core version(s). */
export function apiVersions(resources: readonly ServedResource[], serverAddress: string): unknown {
  const versions = [...new Set(resources.filter((r) => r.group === "").map((r) => r.version))];
  if (versions.length === 0) versions.push("v1");
  return {
    kind: "APIVersions",
    versions,
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

/** `GET /apis`: `APIGroupList` with every non-core group of `resources` (versions sorted, first preferred). */
export function apiGroupList(resources: readonly ServedResource[]): unknown {
  const groups = new Map<string, Set<string>>();
  for (const r of resources) {
    if (r.group === "") continue;
    let vs = groups.get(r.group);
    if (vs === undefined) {
      vs = new Set();
      groups.set(r.group, vs);
    }
    vs.add(r.version);
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, vs]) => apiGroupOf(name, [...vs].sort(compareKubeVersions))),
  };
}

function apiGroupOf(name: string, versions: readonly string[]) {
  const gvs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

/** `GET /apis/<group>`: `APIGroup`, or `undefined` when no resource is served in the group. */
export function apiGroup(resources: readonly ServedResource[], group: string): unknown {
  const vs = [...new Set(resources.filter((r) => r.group === group && group !== "").map((r) => r.version))];
  if (vs.length === 0) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroupOf(group, vs.sort(compareKubeVersions)) };
}

/** The subresources a backend may or may not serve, so discovery lists them only when it does. */
export interface ServedSubresources {
  /** `pods/log` (the backend answers `podLog`). */
  readonly podLog?: boolean;
}

/**
 * `GET /api/v1` or `/apis/<group>/<version>`: `APIResourceList`, or `undefined` when nothing is served there.
 * Resources are sorted by name. Only subresources the simulator serves are listed: kube-apiserver also lists
 * `pods/exec`, `pods/attach`, `pods/portforward` and the `proxy` subresources, which the simulator has no route for.
 */
export function apiResourceList(
  resources: readonly ServedResource[],
  group: string,
  version: string,
  served: ServedSubresources = {},
): unknown {
  const rs = resources.filter((r) => r.group === group && r.version === version);
  if (rs.length === 0) return undefined;
  const body: Record<string, unknown> = { kind: "APIResourceList" };
  if (group !== "") body.apiVersion = "v1";
  body.groupVersion = groupVersionString(group, version);
  body.resources = [...rs]
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))
    .flatMap((r) => [
      {
        name: r.resource,
        singularName: r.singularName,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: [...r.verbs],
        ...(r.shortNames !== undefined && r.shortNames.length > 0 && { shortNames: [...r.shortNames] }),
        ...(r.categories !== undefined && r.categories.length > 0 && { categories: [...r.categories] }),
        storageVersionHash: storageVersionHash(r),
      },
      // `namespaces/finalize` (the namespace controller's last write): update only.
      ...(r.group === "" && r.resource === "namespaces"
        ? [{ name: "namespaces/finalize", singularName: "", namespaced: false, kind: "Namespace", verbs: ["update"] }]
        : []),
      // The create subresources the simulator serves, with the kind their body is (kube-apiserver lists them so;
      // `kubectl drain` evicts only when discovery lists `pods/eviction`, else it deletes).
      ...(r.group === "" && r.resource === "pods"
        ? [
            { name: "pods/binding", singularName: "", namespaced: true, kind: "Binding", verbs: ["create"] },
            // `pods/log`: a GET of the Pod's container output (kubectl logs reads it without discovery, others ask).
            ...(served.podLog === true
              ? [{ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] }]
              : []),
            {
              name: "pods/eviction",
              singularName: "",
              namespaced: true,
              group: "policy",
              version: "v1",
              kind: "Eviction",
              verbs: ["create"],
            },
          ]
        : []),
      ...(r.group === "" && r.resource === "serviceaccounts"
        ? [
            {
              name: "serviceaccounts/token",
              singularName: "",
              namespaced: true,
              group: "authentication.k8s.io",
              version: "v1",
              kind: "TokenRequest",
              verbs: ["create"],
            },
          ]
        : []),
      // The status subresource is listed as its own entry, as kube-apiserver does (`pods/status`).
      ...(r.subresources?.includes("status") === true
        ? [
            {
              name: `${r.resource}/status`,
              singularName: "",
              namespaced: r.namespaced,
              kind: r.kind,
              verbs: ["get", "patch", "update"],
            },
          ]
        : []),
      // certificatesigningrequests/approval (the approver's write path): get, patch, update.
      ...(r.subresources?.includes("approval") === true
        ? [
            {
              name: `${r.resource}/approval`,
              singularName: "",
              namespaced: r.namespaced,
              kind: r.kind,
              verbs: ["get", "patch", "update"],
            },
          ]
        : []),
      ...(r.subresources?.includes("scale") === true
        ? [
            {
              name: `${r.resource}/scale`,
              singularName: "",
              namespaced: r.namespaced,
              group: "autoscaling",
              version: "v1",
              kind: "Scale",
              verbs: ["get", "patch", "update"],
            },
          ]
        : []),
    ]);
  return body;
}

/**
 * The resource's `storageVersionHash`, as upstream's `discovery.StorageVersionHash(group, version, kind)`
 * (staging/src/k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go): the first 8 bytes of the SHA-256
 * of `group/version/kind` of the version storage keeps, base64. A resource stored as another ({@link StoredAs})
 * hashes that one (autoscaling/v1 HPAs carry autoscaling/v2's hash); a custom resource its definition's current
 * storage version.
 */
function storageVersionHash(r: ServedResource): string {
  const stored = (r as { storedAs?: StoredAs }).storedAs?.resource ?? r;
  const version = (r as { storageVersion?: string }).storageVersion ?? stored.version;
  const gvk = `${stored.group}/${version}/${stored.kind}`;
  return createHash("sha256").update(gvk).digest().subarray(0, 8).toString("base64");
}
