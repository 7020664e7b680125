import type { KubeObject } from "@informer-ts/apimachinery";
import {
  addQuantity,
  compareQuantity,
  isBinaryQuantityText,
  parseQuantity,
  type Quantity,
  quantityAsFloat,
  quantityString,
} from "./cel/quantity.js";

/** The annotation naming what the plugin defaulted (`limitRangerAnnotation`). */
export const LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** A parsed quantity and the format its text sets for `String()`. */
interface Amount {
  readonly q: Quantity;
  readonly binary: boolean;
}
type Amounts = Map<string, Amount>;

function amount(v: unknown): Amount | undefined {
  const text = typeof v === "number" ? String(v) : typeof v === "string" ? v : undefined;
  if (text === undefined) return undefined;
  const q = parseQuantity(text);
  return q instanceof Error ? undefined : { q, binary: isBinaryQuantityText(text) };
}

/** A `ResourceList` as amounts (values that are no quantity are left out: validation reports them). */
function amounts(v: unknown): Amounts {
  const out: Amounts = new Map();
  if (!isObj(v)) return out;
  for (const [k, raw] of Object.entries(v)) {
    const a = amount(raw);
    if (a !== undefined) out.set(k, a);
  }
  return out;
}

const text = (a: Amount): string => quantityString(a.q, a.binary);

interface LimitItem {
  readonly type: string;
  readonly min: Amounts;
  readonly max: Amounts;
  readonly ratio: Amounts;
  readonly default: Obj;
  readonly defaultRequest: Obj;
}

function itemsOf(limitRange: KubeObject): LimitItem[] {
  const spec = isObj(limitRange.spec) ? limitRange.spec : {};
  return objects(spec.limits).map((l) => ({
    type: typeof l.type === "string" ? l.type : "",
    min: amounts(l.min),
    max: amounts(l.max),
    ratio: amounts(l.maxLimitRequestRatio),
    default: isObj(l.default) ? l.default : {},
    defaultRequest: isObj(l.defaultRequest) ? l.defaultRequest : {},
  }));
}

// ---- mutation -----------------------------------------------------------------------------------------------------

/**
 * One container's defaults (`mergeContainerResources`): each of the LimitRange's Container `default` limits and
 * `defaultRequest` requests the container does not set; returns the annotation's parts for it.
 */
function mergeContainer(c: Obj, limits: Obj, requests: Obj, what: string): string[] {
  const res = isObj(c.resources) ? c.resources : {};
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  const has = (list: unknown, k: string) => isObj(list) && k in list;
  for (const [k, v] of Object.entries(limits)) {
    if (has(res.limits, k)) continue;
    res.limits = { ...(isObj(res.limits) ? res.limits : {}), [k]: v };
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(requests)) {
    if (has(res.requests, k)) continue;
    res.requests = { ...(isObj(res.requests) ? res.requests : {}), [k]: v };
    setRequests.push(k);
  }
  if (setLimits.length > 0 || setRequests.length > 0) c.resources = res;
  const name = typeof c.name === "string" ? c.name : "";
  const parts: string[] = [];
  if (setRequests.length > 0) parts.push(`${setRequests.sort().join(", ")} request for ${what} ${name}`);
  if (setLimits.length > 0) parts.push(`${setLimits.sort().join(", ")} limit for ${what} ${name}`);
  return parts;
}

/**
 * `PodMutateLimitFunc` for one LimitRange, in place: the Container items' `default`/`defaultRequest` (the last item
 * of a key wins, as upstream's map) fill what each container and init container leaves unset, and the pod is
 * annotated `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request for container app; …`.
 */
function mutatePod(limitRange: KubeObject, pod: KubeObject): void {
  const limits: Obj = {};
  const requests: Obj = {};
  for (const item of itemsOf(limitRange)) {
    if (item.type !== "Container") continue;
    Object.assign(requests, item.defaultRequest);
    Object.assign(limits, item.default);
  }
  const spec = isObj(pod.spec) ? pod.spec : {};
  const parts = [
    ...objects(spec.containers).flatMap((c) => mergeContainer(c, limits, requests, "container")),
    ...objects(spec.initContainers).flatMap((c) => mergeContainer(c, limits, requests, "init container")),
  ];
  if (parts.length === 0) return;
  pod.metadata ??= {};
  const meta = pod.metadata;
  meta.annotations = {
    ...(meta.annotations ?? {}),
    [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${parts.join("; ")}`,
  };
}

// ---- constraints --------------------------------------------------------------------------------------------------

/**
 * `minConstraint`, `maxConstraint` and `maxRequestConstraint`: a bound on the amounts `checked` names, in upstream's
 * order. The first must be given (a minimum needs a request, a maximum a limit; a PersistentVolumeClaim's maximum
 * checks its request alone); each given one must be at or above a minimum, at or below a maximum.
 */
function boundConstraint(
  bound: "minimum" | "maximum",
  type: string,
  name: string,
  enforced: Amount,
  checked: readonly (readonly ["request" | "limit", Amount | undefined])[],
): string | undefined {
  const head = `${bound} ${name} usage per ${type} is ${text(enforced)}`;
  const [required, first] = checked[0]!;
  if (first === undefined) return `${head}.  No ${required} is specified`;
  const outside = bound === "minimum" ? -1 : 1;
  for (const [what, amount] of checked) {
    if (amount !== undefined && Math.sign(compareQuantity(amount.q, enforced.q)) === outside)
      return `${head}, but ${what} is ${text(amount)}`;
  }
  return undefined;
}

/** Go's `%f`: six decimals. */
const goFloat = (x: number): string => x.toFixed(6);

function ratioConstraint(
  type: string,
  name: string,
  enforced: Amount,
  request: Amounts,
  limit: Amounts,
): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  const e = text(enforced);
  if (req === undefined || req.q.num === 0n)
    return `${name} max limit to request ratio per ${type} is ${e}, but no request is specified or request is 0`;
  if (lim === undefined || lim.q.num === 0n)
    return `${name} max limit to request ratio per ${type} is ${e}, but no limit is specified or limit is 0`;
  const observed = quantityAsFloat(lim.q) / quantityAsFloat(req.q);
  if (observed > quantityAsFloat(enforced.q))
    return `${name} max limit to request ratio per ${type} is ${e}, but provided ratio is ${goFloat(observed)}`;
  return undefined;
}

function checkAll(type: string, item: LimitItem, request: Amounts, limit: Amounts, errs: string[]): void {
  const push = (e: string | undefined) => e !== undefined && errs.push(e);
  for (const [k, v] of item.min)
    push(
      boundConstraint("minimum", type, k, v, [
        ["request", request.get(k)],
        ["limit", limit.get(k)],
      ]),
    );
  for (const [k, v] of item.max)
    push(
      boundConstraint("maximum", type, k, v, [
        ["limit", limit.get(k)],
        ["request", request.get(k)],
      ]),
    );
  for (const [k, v] of item.ratio) push(ratioConstraint(type, k, v, request, limit));
}

function resourcesOf(c: Obj, field: "requests" | "limits"): Amounts {
  return amounts(isObj(c.resources) ? c.resources[field] : undefined);
}

function add(into: Map<string, Amount>, list: Amounts): void {
  for (const [k, v] of list) {
    const cur = into.get(k);
    into.set(k, cur === undefined ? v : { q: addQuantity(cur.q, v.q), binary: cur.binary });
  }
}

function maxInto(into: Map<string, Amount>, list: Amounts): void {
  for (const [k, v] of list) {
    const cur = into.get(k);
    if (cur === undefined || compareQuantity(v.q, cur.q) > 0) into.set(k, v);
  }
}

/**
 * The pod's effective requests or limits (the plugin's `podRequests`/`podLimits`): the containers' sum, with
 * restartable (sidecar) init containers added to it and each other init container counted on top of the sidecars
 * started before it, the maximum of those taken.
 */
function podTotal(spec: Obj, field: "requests" | "limits"): Amounts {
  const total: Map<string, Amount> = new Map();
  for (const c of objects(spec.containers)) add(total, resourcesOf(c, field));
  const sidecars: Map<string, Amount> = new Map();
  const init: Map<string, Amount> = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = resourcesOf(c, field);
    if (c.restartPolicy === "Always") {
      add(total, own);
      add(sidecars, own);
      maxInto(init, sidecars);
    } else {
      const tmp: Map<string, Amount> = new Map();
      add(tmp, own);
      add(tmp, sidecars);
      maxInto(init, tmp);
    }
  }
  maxInto(total, init);
  return total;
}

/**
 * `PodValidateLimitFunc` for one LimitRange: the Container items' min, max and maxLimitRequestRatio on every
 * container and init container, the Pod items' on the pod's effective totals ({@link podTotal}).
 */
function validatePod(limitRange: KubeObject, pod: KubeObject): string[] {
  const errs: string[] = [];
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const item of itemsOf(limitRange)) {
    if (item.type === "Container") {
      for (const c of [...objects(spec.containers), ...objects(spec.initContainers)])
        checkAll("Container", item, resourcesOf(c, "requests"), resourcesOf(c, "limits"), errs);
    } else if (item.type === "Pod") {
      checkAll("Pod", item, podTotal(spec, "requests"), podTotal(spec, "limits"), errs);
    }
  }
  return errs;
}

/**
 * `PersistentVolumeClaimValidateLimitFunc`: a PersistentVolumeClaim item's `min` and `max` on the claim's
 * `spec.resources.requests` (its limits are not the user's input).
 */
function validateClaim(limitRange: KubeObject, pvc: KubeObject): string[] {
  const errs: string[] = [];
  const spec = isObj(pvc.spec) ? pvc.spec : {};
  const requests = amounts(isObj(spec.resources) ? spec.resources.requests : undefined);
  for (const item of itemsOf(limitRange)) {
    if (item.type !== "PersistentVolumeClaim") continue;
    for (const [k, v] of item.min) {
      const e = boundConstraint("minimum", "PersistentVolumeClaim", k, v, [["request", requests.get(k)]]);
      if (e !== undefined) errs.push(e);
    }
    for (const [k, v] of item.max) {
      const e = boundConstraint("maximum", "PersistentVolumeClaim", k, v, [["request", requests.get(k)]]);
      if (e !== undefined) errs.push(e);
    }
  }
  return errs;
}

/** `utilerrors.NewAggregate(errs).Error()`: one message alone, several (duplicates once) as `[a, b]`. */
export function aggregateMessage(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

/** What the plugin admits: pods on create, PersistentVolumeClaims on create and update, never a subresource. */
export function limitRangerApplies(resource: string, create: boolean): boolean {
  return resource === "pods" ? create : resource === "persistentvolumeclaims";
}

/**
 * The `LimitRanger` admission plugin (plugin/pkg/admission/limitranger/admission.go), its mutating half: each of the
 * namespace's LimitRanges in turn defaults a new pod's container resources ({@link mutatePod}). Changes `pod` in
 * place.
 */
export function admitLimitRanges(limitRanges: readonly KubeObject[], pod: KubeObject): void {
  for (const lr of limitRanges) mutatePod(lr, pod);
}

/**
 * The `LimitRanger` plugin's validating half: the message of the first of the namespace's LimitRanges that `obj` (a
 * pod or a PersistentVolumeClaim) violates — all its violations aggregated — for the 403 `… is forbidden: …`; or
 * `undefined` when every LimitRange admits it.
 */
export function limitRangeViolation(
  limitRanges: readonly KubeObject[],
  resource: string,
  obj: KubeObject,
): string | undefined {
  for (const lr of limitRanges) {
    const errs = resource === "pods" ? validatePod(lr, obj) : validateClaim(lr, obj);
    if (errs.length > 0) return aggregateMessage(errs);
  }
  return undefined;
}
