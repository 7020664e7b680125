// What changed between kubelet releases in the path from a pod sync to a ConfigMap/Secret read, each switch with the
// upstream change that made it: the model of `kubelet-configmap` and of `apiserver-load`'s kubelets.

/** How one kubelet release registers pods with its ConfigMap/Secret manager and treats immutable objects. */
export interface KubeletRelease {
  /** `1.<minor>`. */
  readonly minor: number;
  /**
   * Whether every pod sync (the 60–90 s resync included) registers the pod with the manager. Before kubernetes#107821
   * (1.24; backported to release-1.22 by #108754 and release-1.23 by #108756, March 2022) the pod manager registered
   * a pod only when it was added or updated; the change moved registration into the pod workers' sync functions.
   * 1.22 and 1.23 are modelled with the backport (write-up 000 ran v1.22.13).
   */
  readonly registersOnEverySync: boolean;
  /**
   * Whether the Cache strategy invalidates every object a pod references each time the pod is registered, so the
   * next read is a GET to etcd (resourceVersion unset). kubernetes#120255 (1.29) invalidates only objects newly
   * referenced by the pod.
   */
  readonly cacheInvalidatesOnEveryRegistration: boolean;
  /**
   * `ImmutableEphemeralVolumes` (KEP-1412): the Watch strategy stops watching an object marked `immutable: true`.
   * Alpha (off) in 1.18, beta (on) in 1.19, GA (always on) in 1.21; the gate does not exist before 1.18.
   */
  readonly immutableEphemeralVolumes: boolean;
}

/** Options of {@link kubeletRelease}. */
export interface KubeletReleaseOptions {
  /**
   * `--feature-gates=ImmutableEphemeralVolumes=…`: on in 1.18 (alpha) or off in 1.19–1.20 (beta); it cannot be turned
   * off from 1.21 (GA) nor on before 1.18 (no such gate): a RangeError says so.
   */
  readonly immutableEphemeralVolumes?: boolean;
}

/** The release switches modelled, oldest first: the minor where each took effect and its upstream change. */
export const KUBELET_RELEASE_SWITCHES: readonly {
  readonly minor: number;
  readonly change: string;
  readonly upstream: string;
}[] = [
  {
    minor: 18,
    change: "ImmutableEphemeralVolumes alpha (off by default): immutable ConfigMaps/Secrets",
    upstream: "KEP-1412",
  },
  {
    minor: 19,
    change: "ImmutableEphemeralVolumes beta (on): Watch stops watching immutable objects",
    upstream: "KEP-1412",
  },
  { minor: 21, change: "ImmutableEphemeralVolumes GA (locked on)", upstream: "KEP-1412" },
  {
    minor: 22,
    change: "pods registered with the ConfigMap/Secret managers on every sync, not only on add/update",
    upstream: "kubernetes#107821 (1.24), backported by #108754 (release-1.22) and #108756 (release-1.23)",
  },
  {
    minor: 29,
    change: "the Cache strategy invalidates only newly referenced objects on registration",
    upstream: "kubernetes#120255",
  },
];

/**
 * The minor version of a `major.minor[.patch]` kubelet version (`1.28`, `v1.28.3`, `1.18.8+k3s1`), or a RangeError
 * naming the bad value.
 */
export function kubeletMinorVersion(version: string): number {
  const m = /^v?1\.(\d+)(\.\d+)?(?:[-+][\w.+-]*)?$/.exec(version.trim());
  if (m === null) throw new RangeError(`kubelet version must look like 1.28 or v1.28.0, got "${version}"`);
  return Number(m[1]);
}

/**
 * The kubelet version a user agent names (`kubelet/v1.28.3 (linux/amd64) kubernetes/a8a1abc` → `1.28.3`); undefined
 * when it is not a kubelet's.
 */
export function kubeletVersionOfUserAgent(userAgent: string): string | undefined {
  return /^kubelet\/v(1\.\d+(?:\.\d+)?)/.exec(userAgent.trim())?.[1];
}

/** The model of kubelet `version` (see {@link KubeletRelease}); a RangeError names a bad version or gate setting. */
export function kubeletRelease(version: string, options: KubeletReleaseOptions = {}): KubeletRelease {
  const minor = kubeletMinorVersion(version);
  const gate = options.immutableEphemeralVolumes;
  if (gate !== undefined && minor < 18)
    throw new RangeError(`ImmutableEphemeralVolumes does not exist in kubelet 1.${minor} (it came in 1.18 as alpha)`);
  if (gate === false && minor >= 21)
    throw new RangeError(`ImmutableEphemeralVolumes is GA in kubelet 1.${minor} and cannot be turned off`);
  return {
    minor,
    registersOnEverySync: minor >= 22,
    cacheInvalidatesOnEveryRegistration: minor < 29,
    immutableEphemeralVolumes: gate ?? minor >= 19,
  };
}

/**
 * The GET a Cache-strategy kubelet of `release` sends when a pod sync remounts a ConfigMap (its entry `sinceLastReadMs`
 * old, TTL `ttlMs`), by what triggered the sync: `add` (a new pod: its references are new, the entry is invalidated
 * in every release), `update` (a changed pod: registered, which invalidates until 1.28) or `resync` (registered only
 * from 1.22). An invalidated entry is fetched with `resourceVersion` unset (etcd); a stale one with "0" (the watch
 * cache); a fresh one not at all (undefined).
 */
export function cacheStrategyRead(
  release: KubeletRelease,
  o: { readonly trigger: "add" | "update" | "resync"; readonly sinceLastReadMs: number; readonly ttlMs: number },
): { readonly resourceVersion: "" | "0" } | undefined {
  if (o.trigger === "add") return { resourceVersion: "" };
  const registered = o.trigger === "update" || release.registersOnEverySync;
  if (registered && release.cacheInvalidatesOnEveryRegistration) return { resourceVersion: "" };
  return o.sinceLastReadMs >= o.ttlMs ? { resourceVersion: "0" } : undefined;
}
