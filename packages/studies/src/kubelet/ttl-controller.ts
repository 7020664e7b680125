// The node TTL controller of kube-controller-manager (pkg/controller/ttl): it annotates every Node with the TTL the
// kubelet's Cache strategy keeps ConfigMaps and Secrets for, chosen by the cluster's size with hysteresis.

/** The Node annotation the TTL controller writes and the kubelet's Cache strategy reads (`v1.ObjectTTLAnnotationKey`). */
export const OBJECT_TTL_ANNOTATION_KEY = "node.alpha.kubernetes.io/ttl";

/** One row of the TTL controller's table: clusters of `sizeMin`–`sizeMax` nodes get `ttlSeconds`. */
export interface TTLBoundary {
  readonly sizeMin: number;
  readonly sizeMax: number;
  readonly ttlSeconds: number;
}

/**
 * The TTL controller's cluster-size table as background write-up 001 quotes it (kube-controller-manager of the
 * v1.1x–v1.2x era): the ranges overlap so that a cluster hovering at a boundary does not flip between two TTLs.
 *
 * Differences from upstream today: the current `ttl_controller.go` has no 600 s row (its last row is 1,800 nodes and
 * up: 300 s). Pass {@link TTL_BOUNDARIES_CURRENT} to {@link TTLController} for that table.
 */
export const TTL_BOUNDARIES: readonly TTLBoundary[] = [
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: 10000, ttlSeconds: 300 },
  { sizeMin: 9000, sizeMax: Number.MAX_SAFE_INTEGER, ttlSeconds: 600 },
];

/** The table of today's upstream `ttl_controller.go`: as {@link TTL_BOUNDARIES} without the 600 s row. */
export const TTL_BOUNDARIES_CURRENT: readonly TTLBoundary[] = [
  ...TTL_BOUNDARIES.slice(0, 4),
  { sizeMin: 1800, sizeMax: Number.MAX_SAFE_INTEGER, ttlSeconds: 300 },
];

/**
 * The TTL controller's sizing state (`ttl.Controller`'s nodeCount, boundaryStep, desiredTTLSeconds): each added node
 * moves one row up when the count exceeds the current row's `sizeMax`, each deleted node one row down when it falls
 * below the row's `sizeMin`. The desired TTL is what the controller patches into every Node's
 * {@link OBJECT_TTL_ANNOTATION_KEY} annotation.
 *
 * Differences from kube-controller-manager: no informer, queue or Node patches; callers apply
 * {@link TTLController.annotate} to their Node objects.
 */
export class TTLController {
  private count = 0;
  private step = 0;

  constructor(private readonly boundaries: readonly TTLBoundary[] = TTL_BOUNDARIES) {
    if (boundaries.length === 0) throw new RangeError("TTLController needs at least one boundary");
  }

  /** Nodes counted so far. */
  get nodeCount(): number {
    return this.count;
  }

  /** The TTL (seconds) every Node should carry now. */
  get desiredTTLSeconds(): number {
    return this.boundaries[this.step]?.ttlSeconds ?? 0;
  }

  /** A Node was added: step up when the count exceeds the current row's maximum. */
  addNode(): void {
    this.count++;
    const row = this.boundaries[this.step];
    if (row !== undefined && this.count > row.sizeMax && this.step < this.boundaries.length - 1) this.step++;
  }

  /** A Node was deleted: step down when the count falls below the current row's minimum. */
  deleteNode(): void {
    if (this.count === 0) return;
    this.count--;
    const row = this.boundaries[this.step];
    if (row !== undefined && this.count < row.sizeMin && this.step > 0) this.step--;
  }

  /** A copy of `annotations` with the desired TTL written under {@link OBJECT_TTL_ANNOTATION_KEY}. */
  annotate(annotations: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { ...annotations, [OBJECT_TTL_ANNOTATION_KEY]: String(this.desiredTTLSeconds) };
  }
}

/**
 * The TTL (seconds) the controller settles on for a cluster that grew from 0 to `nodes` nodes (e.g. 60 s for 2,000
 * nodes: 2,000 does not exceed the 900–2,000 row's maximum).
 */
export function ttlSecondsForClusterSize(nodes: number, boundaries: readonly TTLBoundary[] = TTL_BOUNDARIES): number {
  if (!Number.isInteger(nodes) || nodes < 0) throw new RangeError(`cluster size must be an integer ≥ 0, got ${nodes}`);
  const c = new TTLController(boundaries);
  for (let i = 0; i < nodes; i++) c.addNode();
  return c.desiredTTLSeconds;
}
