import type { KubeObject } from "@informer-ts/apimachinery";

type Obj = Record<string, unknown>;

/**
 * kube-apiserver's service IP allocator, in short: hands out addresses of `--service-cluster-ip-range` (default
 * `10.96.0.0/12`) in order from `.10` (`.1` is the `kubernetes` Service's), skipping those `inUse` reports.
 *
 * Differences from kube-apiserver: sequential, not random; an address freed by a deletion is not handed out again
 * until the range wraps.
 */
export class ServiceIpAllocator {
  private next: number;
  private readonly base: number;
  private readonly size: number;

  constructor(cidr = "10.96.0.0/12") {
    const [ip, bits] = cidr.split("/");
    const parts = (ip ?? "").split(".").map(Number);
    const prefix = Number(bits);
    if (
      parts.length !== 4 ||
      parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255) ||
      !(prefix >= 8 && prefix <= 30)
    )
      throw new RangeError(
        `serviceClusterIpRange must be an IPv4 CIDR with a prefix of 8..30, got ${JSON.stringify(cidr)}`,
      );
    this.base = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
    this.size = 2 ** (32 - prefix);
    this.next = 10;
  }

  /** The next free address (`inUse` tells which are taken); throws a RangeError when the range is full. */
  allocate(inUse: (ip: string) => boolean): string {
    for (let tries = 0; tries < this.size; tries++) {
      const n = this.next;
      this.next = this.next + 1 >= this.size - 1 ? 2 : this.next + 1;
      const v = (this.base + n) >>> 0;
      const ip = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
      if (!inUse(ip)) return ip;
    }
    throw new RangeError("the service cluster IP range is full");
  }
}

/**
 * `SetDefaults_Service` and the service REST's allocation on create, in place: `type: ClusterIP`, `sessionAffinity:
 * None`, a `clusterIP` (and `clusterIPs`) from `allocate` unless given or `None` or the type is `ExternalName`,
 * `ipFamilies: [IPv4]`, `ipFamilyPolicy: SingleStack`, `internalTrafficPolicy: Cluster`, ports `protocol: TCP` and
 * `targetPort` = `port`; NodePort/LoadBalancer services `externalTrafficPolicy: Cluster`. On update (`old`), an
 * absent cluster IP is the stored one (the REST's `patchAllocatedValues`).
 */
export function defaultService(svc: KubeObject, allocate: () => string, old?: KubeObject): void {
  const s = svc.spec;
  if (typeof s !== "object" || s === null || Array.isArray(s)) return;
  const spec = s as Obj;
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  if (spec.type !== "ExternalName") {
    const oldSpec = (old?.spec ?? {}) as Obj;
    if ((spec.clusterIP === undefined || spec.clusterIP === "") && typeof oldSpec.clusterIP === "string") {
      spec.clusterIP = oldSpec.clusterIP;
      if (oldSpec.clusterIPs !== undefined) spec.clusterIPs = oldSpec.clusterIPs;
    }
    if (spec.clusterIP === undefined || spec.clusterIP === "") spec.clusterIP = allocate();
    spec.clusterIPs ??= [spec.clusterIP];
    if (spec.clusterIP !== "None") {
      spec.ipFamilies ??= ["IPv4"];
      spec.ipFamilyPolicy ??= "SingleStack";
    }
    spec.internalTrafficPolicy ??= "Cluster";
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") spec.externalTrafficPolicy ??= "Cluster";
  if (Array.isArray(spec.ports)) {
    for (const p of spec.ports as Obj[]) {
      if (typeof p !== "object" || p === null) continue;
      p.protocol ??= "TCP";
      if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
    }
  }
}
