import { newBadRequest } from "@informer-ts/apimachinery";

/**
 * How a list field of a built-in kind is patched (`patchStrategy`/`patchMergeKey` struct tags): `merge` lists of
 * objects merge element-wise by `key`; `merge` lists of scalars (no key) are unions; every other list is replaced.
 */
interface ListStrategy {
  readonly key?: string;
}

const CONTAINER_LISTS: Record<string, ListStrategy> = {
  ports: { key: "containerPort" },
  env: { key: "name" },
  volumeMounts: { key: "mountPath" },
  volumeDevices: { key: "devicePath" },
  resizePolicy: { key: "resourceName" },
};

function podSpecLists(prefix: string): Record<string, ListStrategy> {
  const out: Record<string, ListStrategy> = {
    [`${prefix}volumes`]: { key: "name" },
    [`${prefix}imagePullSecrets`]: { key: "name" },
    [`${prefix}hostAliases`]: { key: "ip" },
    [`${prefix}topologySpreadConstraints`]: { key: "topologyKey" },
    [`${prefix}resourceClaims`]: { key: "name" },
    [`${prefix}schedulingGates`]: { key: "name" },
  };
  for (const c of ["containers", "initContainers", "ephemeralContainers"]) {
    out[`${prefix}${c}`] = { key: "name" };
    for (const [f, s] of Object.entries(CONTAINER_LISTS)) out[`${prefix}${c}.${f}`] = s;
  }
  return out;
}

const CONDITIONS: Record<string, ListStrategy> = { "status.conditions": { key: "type" } };
const TEMPLATE = { ...podSpecLists("spec.template.spec."), ...CONDITIONS };

/** The merge lists of the built-in kinds the simulator serves (dotted paths without list indices). */
const KIND_LISTS: Record<string, Record<string, ListStrategy>> = {
  Pod: {
    ...podSpecLists("spec."),
    ...CONDITIONS,
    "status.podIPs": { key: "ip" },
    "status.hostIPs": { key: "ip" },
  },
  // PodSpec's tags hold wherever a PodSpec is embedded (PodTemplate's `template`, every workload's template).
  PodTemplate: { ...podSpecLists("template.spec.") },
  ReplicationController: TEMPLATE,
  Deployment: TEMPLATE,
  StatefulSet: TEMPLATE,
  DaemonSet: TEMPLATE,
  ReplicaSet: TEMPLATE,
  Job: TEMPLATE,
  CronJob: { ...podSpecLists("spec.jobTemplate.spec.template.spec.") },
  Service: { "spec.ports": { key: "port" } },
  Node: { ...CONDITIONS, "status.addresses": { key: "type" } },
  Namespace: CONDITIONS,
};

/** `metadata` lists every kind shares. */
const META_LISTS: Record<string, ListStrategy> = {
  "metadata.finalizers": {},
  "metadata.ownerReferences": { key: "uid" },
};

function listStrategy(kind: string, path: string): ListStrategy | undefined {
  // Pod templates carry an ObjectMeta too: their finalizers/ownerReferences merge like the object's own.
  const meta = path.replace(/^(template\.|spec\.template\.|spec\.jobTemplate\.spec\.template\.)(?=metadata\.)/, "");
  return META_LISTS[meta] ?? KIND_LISTS[kind]?.[path];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const PATCH_DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ELEMENT_ORDER = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";

/**
 * A strategic merge patch (`strategicpatch.StrategicMergeMapPatch`) on a built-in kind: maps merge recursively and
 * `null` deletes (as a JSON merge patch); lists declared `patchStrategy:"merge"` merge by their `patchMergeKey`
 * (containers by `name`, ports by `containerPort`, env by `name`, volumes by `name`, conditions by `type`,
 * `ownerReferences` by `uid`, …) or, for lists of scalars such as `metadata.finalizers`, as a union; every other
 * list is replaced. Directives: `$patch: replace|delete` on maps and list elements, `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` (orders the merged list as given). `current` is
 * never modified. A directive it does not know is 400, as upstream.
 *
 * Differences from kube-apiserver: the merge keys are a table of the fields of the kinds the simulator serves
 * (Pod and every kind embedding a PodSpec — PodTemplate, ReplicationController, the apps workloads, Job, CronJob —,
 * Service, Node, Namespace, …), not read from Go structs;
 * kinds outside it patch every list by replacement; `patchStrategy:"retainKeys"` fields (volume sources,
 * deployment strategy) are merged like maps unless the patch says `$retainKeys`.
 */
export function strategicMergePatch(current: unknown, patch: Record<string, unknown>, kind: string): unknown {
  return mergeMap(isObject(current) ? structuredClone(current) : {}, patch, kind, "");
}

function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function mergeMap(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  kind: string,
  path: string,
): Record<string, unknown> {
  const directive = patch[PATCH_DIRECTIVE];
  if (directive !== undefined) {
    if (directive === "replace") {
      const { [PATCH_DIRECTIVE]: _d, ...rest } = patch;
      return stripDirectives(rest);
    }
    if (directive === "delete") return {};
    throw newBadRequest(`Unknown patch directive: ${String(directive)}`);
  }
  const out: Record<string, unknown> = { ...original };
  const orders: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === RETAIN_KEYS) continue;
    if (k.startsWith(SET_ELEMENT_ORDER)) {
      if (Array.isArray(v)) orders[k.slice(SET_ELEMENT_ORDER.length)] = v;
      continue;
    }
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = k.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) {
        const gone = new Set(v.map((x) => JSON.stringify(x)));
        out[field] = cur.filter((x) => !gone.has(JSON.stringify(x)));
      }
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const p = child(path, k);
    const cur = out[k];
    if (isObject(v)) out[k] = mergeMap(isObject(cur) ? cur : {}, v, kind, p);
    else if (Array.isArray(v)) out[k] = mergeList(Array.isArray(cur) ? cur : [], v, kind, p);
    else out[k] = v;
  }
  for (const [field, order] of Object.entries(orders)) {
    const list = out[field];
    if (Array.isArray(list)) out[field] = reorder(list, order, listStrategy(kind, child(path, field))?.key);
  }
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) {
    const keep = new Set(retain.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

function stripDirectives(v: unknown): Record<string, unknown> {
  if (!isObject(v)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith("$")) continue;
    out[k] = isObject(x) ? stripDirectives(x) : x;
  }
  return out;
}

function mergeList(original: unknown[], patch: unknown[], kind: string, path: string): unknown[] {
  const strategy = listStrategy(kind, path);
  if (strategy === undefined) return patch.map((x) => (isObject(x) ? stripDirectives(x) : x));
  // A `{"$patch": "replace"}` element replaces the whole list with the other elements.
  if (patch.some((x) => isObject(x) && x[PATCH_DIRECTIVE] === "replace")) {
    return patch.filter((x) => !(isObject(x) && x[PATCH_DIRECTIVE] === "replace")).map((x) => stripPatch(x));
  }
  if (strategy.key === undefined) {
    // A merge list of scalars: the union, original order first.
    const seen = new Set(original.map((x) => JSON.stringify(x)));
    const out = [...original];
    for (const x of patch) {
      if (!seen.has(JSON.stringify(x))) {
        seen.add(JSON.stringify(x));
        out.push(x);
      }
    }
    return out;
  }
  const key = strategy.key;
  const out = [...original];
  for (const el of patch) {
    if (!isObject(el)) throw newBadRequest(`unable to find api field in struct for the merge key "${key}"`);
    const kv = el[key];
    if (kv === undefined) throw newBadRequest(`map: ${JSON.stringify(el)} does not contain declared merge key: ${key}`);
    const i = out.findIndex((x) => isObject(x) && JSON.stringify(x[key]) === JSON.stringify(kv));
    if (el[PATCH_DIRECTIVE] === "delete") {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    if (i >= 0) out[i] = mergeMap(out[i] as Record<string, unknown>, el, kind, path);
    else out.push(mergeMap({}, el, kind, path));
  }
  return out;
}

function stripPatch(x: unknown): unknown {
  if (!isObject(x)) return x;
  const { [PATCH_DIRECTIVE]: _d, ...rest } = x;
  return stripDirectives(rest);
}

/** `$setElementOrder`: elements named in `order` come first in that order, the others keep their relative order. */
function reorder(list: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const id = (x: unknown): string => JSON.stringify(key !== undefined && isObject(x) ? x[key] : x);
  const rank = new Map(order.map((o, i) => [id(o), i]));
  const ranked = list.filter((x) => rank.has(id(x))).sort((a, b) => rank.get(id(a))! - rank.get(id(b))!);
  const rest = list.filter((x) => !rank.has(id(x)));
  return [...ranked, ...rest];
}
