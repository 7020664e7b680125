import type { KubeObject } from "@informer-ts/apimachinery";

/**
 * The downward API's `resourceFieldRef` as the kubelet resolves it — a port of `pkg/api/v1/resource/helpers.go`
 * (`ExtractContainerResourceValue`, `ExtractResourceValueByContainerName`, the `convertResource…ToString` helpers)
 * and `pkg/kubelet/kubelet_resources.go` (`defaultPodLimitsForDownwardAPI`): a container without a cpu, memory or
 * ephemeral-storage limit sees its node's allocatable amount as the limit, and values are rounded **up** to whole
 * multiples of the `divisor` (default `1`; cpu in milli-units, so `divisor: 1m` gives millicores).
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** A quantity as an exact fraction `num / den` (den a power of ten). */
interface Exact {
  readonly num: bigint;
  readonly den: bigint;
}

/** Parses a Kubernetes quantity (`250m`, `1.5`, `128Mi`, `1e3`) exactly; `undefined` when it is not one. */
export function parseQuantityExact(text: unknown): Exact | undefined {
  const s = typeof text === "number" ? String(text) : typeof text === "string" ? text.trim() : undefined;
  if (s === undefined) return undefined;
  const m = QUANTITY.exec(s);
  if (m === null) return undefined;
  const [whole, frac = ""] = m[2]!.split(".");
  let num = BigInt(`${whole || "0"}${frac}`) * (m[1] === "-" ? -1n : 1n);
  let den = 10n ** BigInt(frac.length);
  const exp = m[3] !== undefined ? Number(m[3].slice(1)) : DECIMAL_EXP[m[4] ?? ""];
  if (m[4] !== undefined && BINARY[m[4]] !== undefined) num *= BINARY[m[4]]!;
  else if (exp !== undefined && exp >= 0) num *= 10n ** BigInt(exp);
  else if (exp !== undefined) den *= 10n ** BigInt(-exp);
  return { num, den };
}

/** ⌈a / b⌉ of two non-negative exact quantities (`b` > 0). */
function ceilDiv(a: Exact, b: Exact): bigint {
  const n = a.num * b.den;
  const d = a.den * b.num;
  if (d === 0n) return 0n;
  const q = n / d;
  return n % d !== 0n && n > 0n === d > 0n ? q + 1n : q;
}

/** `Quantity.MilliValue()` / `Value()` (both round up) as an exact quantity in those units. */
function scaled(q: Exact, milli: boolean): Exact {
  return { num: ceilDiv({ num: q.num * (milli ? 1000n : 1n), den: q.den }, { num: 1n, den: 1n }), den: 1n };
}

const ZERO: Exact = { num: 0n, den: 1n };
const ONE: Exact = { num: 1n, den: 1n };

/** The cpu, memory and ephemeral-storage limits a container without its own sees: its node's allocatable. */
const NODE_DEFAULTED = ["cpu", "memory", "ephemeral-storage"];

/**
 * The value of `ref` (`{ resource, containerName?, divisor? }`) for `container` of `pod`, as the kubelet puts it into
 * an environment variable or a downward-API file — `undefined` for a resource the downward API does not offer
 * (`limits.cpu`, `limits.memory`, `limits.ephemeral-storage`, `limits.hugepages-<size>` and the same `requests.`)
 * or a `containerName` the pod does not have. `node` is the pod's Node (its `status.allocatable` fills unset limits);
 * without it an unset limit reads `0`. An unset request reads as the container's own limit (the apiserver's pod
 * defaulting copies limits to unset requests), else `0`.
 */
export function resourceFieldValue(
  pod: KubeObject,
  container: Obj,
  ref: Obj,
  node: KubeObject | undefined,
): string | undefined {
  const spec = (pod.spec ?? {}) as Obj;
  const name = typeof ref.containerName === "string" ? ref.containerName : "";
  const target =
    name === "" ? container : [...list(spec.initContainers), ...list(spec.containers)].find((c) => c.name === name);
  if (target === undefined) return undefined;
  const resource = typeof ref.resource === "string" ? ref.resource : "";
  const dot = resource.indexOf(".");
  const kind = resource.slice(0, dot);
  const res = resource.slice(dot + 1);
  if (dot < 0 || (kind !== "limits" && kind !== "requests")) return undefined;
  const isCpu = res === "cpu";
  if (!isCpu && res !== "memory" && res !== "ephemeral-storage" && !res.startsWith("hugepages-")) return undefined;
  const resources = isObj(target.resources) ? target.resources : {};
  const limits = isObj(resources.limits) ? resources.limits : {};
  const requests = isObj(resources.requests) ? resources.requests : {};
  let q: Exact | undefined;
  if (kind === "requests") q = parseQuantityExact(requests[res]) ?? parseQuantityExact(limits[res]);
  else {
    q = parseQuantityExact(limits[res]);
    if ((q === undefined || q.num === 0n) && NODE_DEFAULTED.includes(res)) {
      const alloc = (node as { status?: { allocatable?: Obj } } | undefined)?.status?.allocatable;
      q = parseQuantityExact(alloc?.[res]) ?? q;
    }
  }
  const parsedDivisor = parseQuantityExact(ref.divisor);
  const divisor = parsedDivisor === undefined || parsedDivisor.num === 0n ? ONE : parsedDivisor;
  const value = scaled(q ?? ZERO, isCpu);
  const per = scaled(divisor, isCpu);
  if (per.num === 0n) return undefined;
  return ceilDiv(value, per).toString();
}
