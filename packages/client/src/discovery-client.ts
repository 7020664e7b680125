import { isNotFound, statusOf } from "@informer-ts/apimachinery";
import { type Clock, realClock } from "@informer-ts/clock";
import type { ResourceDescriptor } from "./resources.js";
import type { KubeClient } from "./rest-client.js";

/** `Accept` asking for aggregated discovery (`apidiscovery.k8s.io/v2`), falling back to the legacy documents. */
export const AGGREGATED_DISCOVERY_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/** Default {@link DiscoveryClientOptions.ttlMs}: 10 minutes (client-go's disk cache TTL, kubectl's default). */
export const DEFAULT_DISCOVERY_TTL_MS = 10 * 60 * 1000;

/** One resource the server serves (`metav1.APIResource` with its group/version), as discovery reports it. */
export interface DiscoveredResource extends ResourceDescriptor {
  /** Singular name (`deployment`); may be "" on servers that do not report it. */
  readonly singularName: string;
  readonly shortNames: readonly string[];
  readonly verbs: readonly string[];
  /** Subresources served (`status`, `scale`…), always listed (possibly empty). */
  readonly subresources: readonly string[];
  /** Whether `version` is the group's preferred version. */
  readonly preferred: boolean;
}

/** Options of a {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** Clock of the cache's TTL. Default: real time. */
  readonly clock?: Clock;
  /** How long a discovery result is used before it is fetched again. Default 10 min. 0 = always refetch. */
  readonly ttlMs?: number;
}

/**
 * No served resource matches a name (`meta.NoResourceMatchError`; kubectl: `the server doesn't have a resource
 * type "x"`). Thrown after discovery was refreshed once.
 */
export class NoResourceMatchError extends Error {
  override readonly name = "NoResourceMatchError";
  constructor(readonly resourceName: string) {
    super(`the server doesn't have a resource type ${JSON.stringify(resourceName)}`);
  }
}

/** Several groups serve a resource of that name and nothing says which (`meta.AmbiguousResourceError`). */
export class AmbiguousResourceError extends Error {
  override readonly name = "AmbiguousResourceError";
  constructor(
    readonly resourceName: string,
    readonly matches: readonly DiscoveredResource[],
  ) {
    super(
      `${JSON.stringify(resourceName)} matches several resources: ${matches
        .map((m) => (m.group === "" ? m.resource : `${m.resource}.${m.group}`))
        .join(", ")}; qualify it with its group (resource.group)`,
    );
  }
}

interface Snapshot {
  readonly fetchedAt: number;
  readonly resources: readonly DiscoveredResource[];
  readonly aggregated: boolean;
}

/**
 * What the server serves, and name → resource resolution (client-go `discovery.DiscoveryClient` behind
 * `restmapper.DeferredDiscoveryRESTMapper` with kubectl's short-name expansion).
 *
 * Discovery asks `/api` and `/apis` for aggregated discovery (`APIGroupDiscoveryList`, one request each) and falls
 * back to the legacy documents when the server answers plain `APIVersions`/`APIGroupList` (then one `APIResourceList`
 * per group's preferred version, plus every version of the core group). The result is cached for `ttlMs` on the
 * injected clock; concurrent callers share one fetch (a caller's `signal` abandons its wait, not the fetch). A group version that answers 404 while discovery runs (removed
 * meanwhile) is skipped.
 *
 * {@link DiscoveryClient.resolve} accepts a plural (`deployments`), singular (`deployment`), kind (`Deployment`, any
 * case) or short name (`deploy`), optionally qualified as `name.group` (`deployments.apps`) or
 * `name.version.group` (`deployments.v1.apps`). Among matches it prefers the core group, then the group's preferred
 * version, then discovery order; matches in several groups that the rule cannot separate are an
 * {@link AmbiguousResourceError}. A name that matches nothing refreshes discovery once (a CRD may have been created
 * since) before failing with {@link NoResourceMatchError}.
 *
 * Differences from client-go: legacy discovery fetches preferred versions only (and all core versions); there is no
 * disk cache; OpenAPI documents are not fetched.
 */
export class DiscoveryClient {
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private snapshot: Snapshot | undefined;
  private inflight: Promise<Snapshot> | undefined;

  constructor(
    private readonly client: KubeClient,
    options: DiscoveryClientOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    const ttl = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    if (!(ttl >= 0) || !Number.isFinite(ttl)) throw new RangeError(`discovery ttlMs must be ≥ 0, got ${ttl}`);
    this.ttlMs = ttl;
  }

  /** Every served resource (all versions; `preferred` marks the group's preferred one), from cache when fresh. */
  async serverResources(signal?: AbortSignal): Promise<readonly DiscoveredResource[]> {
    return (await this.fresh(signal)).resources;
  }

  /** Whether the last fetch used aggregated discovery (undefined before any fetch). */
  get aggregated(): boolean | undefined {
    return this.snapshot?.aggregated;
  }

  /** Drops the cache: the next call fetches discovery again (`Invalidate`). */
  invalidate(): void {
    this.snapshot = undefined;
  }

  /**
   * The descriptor of the resource `name` names (see the class documentation for the accepted forms). Rejects with
   * {@link NoResourceMatchError} or {@link AmbiguousResourceError}, or with the request's error.
   */
  async resolve(name: string, signal?: AbortSignal): Promise<DiscoveredResource> {
    if (typeof name !== "string" || name.trim() === "") {
      throw new NoResourceMatchError(typeof name === "string" ? name : String(name));
    }
    const cached = this.snapshot;
    const first = await this.fresh(signal);
    const found = pick(name, first.resources);
    if (found !== undefined) return found;
    // Unknown: maybe created since the cache was filled (a new CRD). Refresh once, unless this call just fetched.
    if (first === cached) {
      this.invalidate();
      const retried = pick(name, (await this.fresh(signal)).resources);
      if (retried !== undefined) return retried;
    }
    throw new NoResourceMatchError(name);
  }

  // ---------------------------------------------------------------------------------------------------------

  private async fresh(signal: AbortSignal | undefined): Promise<Snapshot> {
    if (signal?.aborted) throw signal.reason;
    const s = this.snapshot;
    if (s !== undefined && this.clock.since(s.fetchedAt) < this.ttlMs) return s;
    let p = this.inflight;
    if (p === undefined) {
      // One fetch for every concurrent caller, bound to none of their signals: a caller that gives up does not fail
      // the others, and a fetch nobody waits for any more still fills the cache (its failure is not unhandled).
      const fetching = this.fetch(undefined);
      p = fetching;
      this.inflight = fetching;
      fetching
        .then(
          (snap) => {
            this.snapshot = snap;
          },
          () => undefined,
        )
        .finally(() => {
          if (this.inflight === fetching) this.inflight = undefined;
        });
    }
    const snap = await untilAborted(p, signal);
    this.snapshot = snap;
    return snap;
  }

  private async fetch(signal: AbortSignal | undefined): Promise<Snapshot> {
    const fetchedAt = this.clock.now();
    const [core, groups] = await Promise.all([this.getDiscovery("/api", signal), this.getDiscovery("/apis", signal)]);
    if (isAggregated(core) && isAggregated(groups)) {
      return {
        fetchedAt,
        aggregated: true,
        resources: [...fromAggregated(core, true), ...fromAggregated(groups, false)],
      };
    }
    const out: DiscoveredResource[] = [];
    const coreVersions = Array.isArray((core as { versions?: unknown }).versions)
      ? ((core as { versions: unknown[] }).versions.filter((v) => typeof v === "string") as string[])
      : [];
    const lists: Promise<DiscoveredResource[]>[] = coreVersions.map((v, i) =>
      this.legacyResources(`/api/${v}`, "", v, i === 0, signal),
    );
    for (const g of (groups as LegacyGroupList).groups ?? []) {
      const preferred = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (typeof g.name !== "string" || typeof preferred !== "string") continue;
      lists.push(this.legacyResources(`/apis/${g.name}/${preferred}`, g.name, preferred, true, signal));
    }
    for (const l of await Promise.all(lists)) out.push(...l);
    return { fetchedAt, aggregated: false, resources: out };
  }

  private async getDiscovery(path: string, signal: AbortSignal | undefined): Promise<unknown> {
    try {
      return await this.client.getRaw(path, { accept: AGGREGATED_DISCOVERY_ACCEPT }, signal);
    } catch (err) {
      // A server that refuses the aggregated media type outright (406/415) is asked for the legacy document.
      const code = statusOf(err)?.code;
      if (code === 406 || code === 415) return this.client.getRaw(path, {}, signal);
      throw err;
    }
  }

  private async legacyResources(
    path: string,
    group: string,
    version: string,
    preferred: boolean,
    signal: AbortSignal | undefined,
  ): Promise<DiscoveredResource[]> {
    let list: LegacyResourceList;
    try {
      list = await this.client.getRaw<LegacyResourceList>(path, {}, signal);
    } catch (err) {
      if (isNotFound(err)) return []; // the group version went away while discovery ran
      throw err;
    }
    const subs = new Map<string, string[]>();
    for (const r of list.resources ?? []) {
      const slash = typeof r.name === "string" ? r.name.indexOf("/") : -1;
      if (slash > 0) {
        const parent = r.name.slice(0, slash);
        subs.set(parent, [...(subs.get(parent) ?? []), r.name.slice(slash + 1)]);
      }
    }
    const out: DiscoveredResource[] = [];
    for (const r of list.resources ?? []) {
      if (typeof r.name !== "string" || r.name.includes("/") || typeof r.kind !== "string") continue;
      out.push({
        group,
        version,
        resource: r.name,
        kind: r.kind,
        namespaced: r.namespaced === true,
        singularName: r.singularName ?? "",
        shortNames: r.shortNames ?? [],
        verbs: r.verbs ?? [],
        subresources: subs.get(r.name) ?? [],
        preferred,
      });
    }
    return out;
  }
}

interface LegacyGroupList {
  groups?: { name?: string; versions?: { version?: string }[]; preferredVersion?: { version?: string } }[];
}

interface LegacyResourceList {
  resources?: {
    name: string;
    singularName?: string;
    namespaced?: boolean;
    kind?: string;
    verbs?: string[];
    shortNames?: string[];
  }[];
}

interface AggregatedList {
  kind: "APIGroupDiscoveryList";
  items?: {
    metadata?: { name?: string };
    versions?: {
      version?: string;
      resources?: {
        resource?: string;
        responseKind?: { kind?: string };
        scope?: string;
        singularResource?: string;
        shortNames?: string[];
        verbs?: string[];
        subresources?: { subresource?: string }[];
      }[];
    }[];
  }[];
}

function isAggregated(v: unknown): v is AggregatedList {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "APIGroupDiscoveryList";
}

function fromAggregated(list: AggregatedList, core: boolean): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  for (const g of list.items ?? []) {
    const group = core ? "" : (g.metadata?.name ?? "");
    // Versions are listed in preference order; the first is the preferred one.
    (g.versions ?? []).forEach((v, i) => {
      if (typeof v.version !== "string") return;
      for (const r of v.resources ?? []) {
        if (typeof r.resource !== "string" || typeof r.responseKind?.kind !== "string") continue;
        out.push({
          group,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind.kind,
          namespaced: r.scope === "Namespaced",
          singularName: r.singularResource ?? "",
          shortNames: r.shortNames ?? [],
          verbs: r.verbs ?? [],
          subresources: (r.subresources ?? [])
            .map((s) => s.subresource)
            .filter((s): s is string => typeof s === "string"),
          preferred: i === 0,
        });
      }
    });
  }
  return out;
}

/** `p`, or a rejection with `signal.reason` as soon as `signal` aborts (`p` keeps running). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Candidate (name, version?, group?) readings of a user's resource argument (`schema.ParseResourceArg`). */
function readings(arg: string): { name: string; version?: string; group?: string }[] {
  const out: { name: string; version?: string; group?: string }[] = [{ name: arg }];
  const dot = arg.indexOf(".");
  if (dot > 0) {
    const name = arg.slice(0, dot);
    const rest = arg.slice(dot + 1);
    out.push({ name, group: rest });
    const dot2 = rest.indexOf(".");
    if (dot2 > 0) out.push({ name, version: rest.slice(0, dot2), group: rest.slice(dot2 + 1) });
    else if (/^v\d+((alpha|beta)\d+)?$/.test(rest)) out.push({ name, version: rest, group: "" });
  }
  return out;
}

function matchesName(r: DiscoveredResource, name: string): boolean {
  const lower = name.toLowerCase();
  return (
    r.resource === lower || r.singularName === lower || r.kind.toLowerCase() === lower || r.shortNames.includes(lower)
  );
}

function pick(arg: string, all: readonly DiscoveredResource[]): DiscoveredResource | undefined {
  for (const reading of readings(arg.trim())) {
    const matches = all.filter(
      (r) =>
        matchesName(r, reading.name) &&
        (reading.group === undefined || r.group === reading.group) &&
        (reading.version === undefined || r.version === reading.version),
    );
    if (matches.length === 0) continue;
    // Prefer exact plural matches over kind/singular/short-name matches (a short name never shadows a resource).
    const plural = matches.filter((m) => m.resource === reading.name.toLowerCase());
    const pool = plural.length > 0 ? plural : matches;
    const byVersion = reading.version === undefined ? preferVersions(pool) : pool;
    const groups = [...new Set(byVersion.map((m) => m.group))];
    if (groups.length === 1 || groups.includes("")) {
      const g = groups.includes("") ? "" : groups[0];
      return byVersion.find((m) => m.group === g);
    }
    throw new AmbiguousResourceError(arg, byVersion);
  }
  return undefined;
}

/** Per group, the preferred version's entries when there are any, else every entry. */
function preferVersions(pool: readonly DiscoveredResource[]): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  for (const g of new Set(pool.map((m) => m.group))) {
    const inGroup = pool.filter((m) => m.group === g);
    const preferred = inGroup.filter((m) => m.preferred);
    out.push(...(preferred.length > 0 ? preferred : inGroup));
  }
  return out;
}
