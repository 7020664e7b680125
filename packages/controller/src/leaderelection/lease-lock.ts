import type { KubeObject } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import type { ObjectClient } from "../object-client.js";

/** `coordination.k8s.io/v1` `leases`. */
export const leasesResource: ResourceDescriptor = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  kind: "Lease",
  namespaced: true,
};

/**
 * The election state stored in the lock (`resourcelock.LeaderElectionRecord`). Times are milliseconds since the epoch
 * (the Lease stores them as `MicroTime` strings). An empty `holderIdentity` means nobody leads (a released lease).
 */
export interface LeaderElectionRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number | undefined;
  readonly renewTime: number | undefined;
  readonly leaderTransitions: number;
}

/** A Lease whose spec cannot be read as a {@link LeaderElectionRecord}; the message names the field. */
export class InvalidLeaseError extends Error {
  override readonly name = "InvalidLeaseError";
}

/** `metav1.MicroTime` text: RFC 3339 with six fractional digits, UTC. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * `resourcelock.LeaseSpecToLeaderElectionRecord`, checked: a field of the wrong type (a non-string
 * `holderIdentity`, a negative or fractional `leaseDurationSeconds`, an unparsable time) throws an
 * {@link InvalidLeaseError} naming it, where client-go's decoder would fail the whole Get.
 */
export function leaseSpecToLeaderElectionRecord(spec: unknown, where = "lease"): LeaderElectionRecord {
  if (spec === undefined || spec === null) spec = {};
  if (typeof spec !== "object" || Array.isArray(spec)) throw new InvalidLeaseError(`${where}: spec is not an object`);
  const s = spec as Record<string, unknown>;
  const holder = s.holderIdentity ?? "";
  if (typeof holder !== "string") {
    throw new InvalidLeaseError(`${where}: spec.holderIdentity must be a string, got ${typeof holder}`);
  }
  const int = (field: string): number => {
    const v = s[field] ?? 0;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1) {
      throw new InvalidLeaseError(
        `${where}: spec.${field} must be a non-negative 32-bit integer, got ${JSON.stringify(v)}`,
      );
    }
    return v;
  };
  const time = (field: string): number | undefined => {
    const v = s[field];
    if (v === undefined || v === null) return undefined;
    const t = typeof v === "string" ? Date.parse(v) : Number.NaN;
    if (Number.isNaN(t)) throw new InvalidLeaseError(`${where}: spec.${field} is not a time: ${JSON.stringify(v)}`);
    return t;
  };
  return {
    holderIdentity: holder,
    leaseDurationSeconds: int("leaseDurationSeconds"),
    acquireTime: time("acquireTime"),
    renewTime: time("renewTime"),
    leaderTransitions: int("leaseTransitions"),
  };
}

/** `resourcelock.LeaderElectionRecordToLeaseSpec`. */
export function leaderElectionRecordToLeaseSpec(r: LeaderElectionRecord): Record<string, unknown> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    ...(r.acquireTime !== undefined && { acquireTime: formatMicroTime(r.acquireTime) }),
    ...(r.renewTime !== undefined && { renewTime: formatMicroTime(r.renewTime) }),
    leaseTransitions: r.leaderTransitions,
  };
}

/** The lock a {@link LeaderElector} competes for (`resourcelock.Interface`). */
export interface ResourceLock {
  /** The current record and its canonical text (to notice changes); rejects with a 404 StatusError when absent. */
  get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Writes `record` over the object last read or created; a concurrent change rejects with a 409 Conflict. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** This candidate's identity. */
  identity(): string;
  /** `namespace/name` of the lock. */
  describe(): string;
}

/** Options of a {@link LeaseLock}. */
export interface LeaseLockOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly client: ObjectClient;
  /** Labels put on the Lease when this candidate creates or updates it. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A lock on a `coordination.k8s.io/v1` Lease (`resourcelock.LeaseLock`). `update` writes over the Lease as last read,
 * resourceVersion included, so two candidates racing for it cannot both win: the loser gets a 409 Conflict.
 */
export class LeaseLock implements ResourceLock {
  private lease: KubeObject | undefined;

  constructor(private readonly options: LeaseLockOptions) {
    for (const f of ["namespace", "name"] as const) {
      if (typeof options[f] !== "string" || options[f] === "")
        throw new TypeError(`LeaseLock: ${f} must be a non-empty string`);
    }
    if (typeof options.identity !== "string") throw new TypeError("LeaseLock: identity must be a string");
  }

  async get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }> {
    const lease = await this.options.client.get(
      leasesResource,
      this.options.name,
      { namespace: this.options.namespace },
      signal,
    );
    this.lease = lease;
    const record = leaseSpecToLeaderElectionRecord(lease.spec, `lease ${this.describe()}`);
    return { record, raw: JSON.stringify(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.options.client.create(
      leasesResource,
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: this.options.name,
          namespace: this.options.namespace,
          ...(this.options.labels !== undefined && { labels: { ...this.options.labels } }),
        },
        spec: leaderElectionRecordToLeaseSpec(record),
      },
      { namespace: this.options.namespace },
      signal,
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (this.lease === undefined) throw new Error("lease not initialized, call get or create first");
    const next: KubeObject = {
      ...this.lease,
      metadata: {
        ...this.lease.metadata,
        ...(this.options.labels !== undefined && {
          labels: { ...this.lease.metadata?.labels, ...this.options.labels },
        }),
      },
      spec: leaderElectionRecordToLeaseSpec(record),
    };
    this.lease = await this.options.client.update(leasesResource, next, { namespace: this.options.namespace }, signal);
  }

  identity(): string {
    return this.options.identity;
  }

  describe(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }
}
