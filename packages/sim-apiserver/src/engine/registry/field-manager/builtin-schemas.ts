import { ATOMIC_LIST, atomicList, listMap, OPEN, SCALAR, SET, STRING_MAP, struct, type TypeDef } from "./schema.js";

/**
 * The schemas of the built-in kinds, as far as the field manager needs them: the list types and map/struct
 * distinctions of the Kubernetes OpenAPI (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`). Anything not spelled out is `open` (a struct field, arrays atomic).
 */

/** `metav1.ObjectMeta`. */
export const OBJECT_META: TypeDef = struct({
  labels: STRING_MAP,
  annotations: STRING_MAP,
  finalizers: SET,
  ownerReferences: listMap(OPEN, ["uid"]),
  managedFields: atomicList(OPEN),
});

const LABEL_SELECTOR = struct({}, true);

const ENV_VAR = struct({ name: SCALAR, value: SCALAR });

/** `core/v1.Container`. */
const CONTAINER = struct({
  name: SCALAR,
  image: SCALAR,
  command: ATOMIC_LIST,
  args: ATOMIC_LIST,
  ports: listMap(struct({}), ["containerPort", "protocol"], { protocol: "TCP" }),
  env: listMap(ENV_VAR, ["name"]),
  volumeMounts: listMap(struct({}), ["mountPath"]),
  volumeDevices: listMap(struct({}), ["devicePath"]),
  resizePolicy: atomicList(OPEN),
  resources: struct({ limits: { type: "map", element: SCALAR }, requests: { type: "map", element: SCALAR } }),
});

/** `core/v1.PodSpec`. */
const POD_SPEC = struct({
  containers: listMap(CONTAINER, ["name"]),
  initContainers: listMap(CONTAINER, ["name"]),
  ephemeralContainers: listMap(OPEN, ["name"]),
  volumes: listMap(struct({}), ["name"]),
  imagePullSecrets: listMap(struct({}), ["name"]),
  tolerations: atomicList(OPEN),
  nodeSelector: STRING_MAP,
  hostAliases: listMap(struct({}), ["ip"]),
  topologySpreadConstraints: listMap(struct({}), ["topologyKey", "whenUnsatisfiable"]),
  resourceClaims: listMap(struct({}), ["name"]),
  schedulingGates: listMap(struct({}), ["name"]),
});

const POD_TEMPLATE_SPEC = struct({ metadata: OBJECT_META, spec: POD_SPEC });

const CONDITIONS = listMap(struct({}), ["type"]);

function object(fields: Record<string, TypeDef>): TypeDef {
  return struct({ apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META, ...fields });
}

const CONFIG_MAP = object({ data: STRING_MAP, binaryData: STRING_MAP });
const SECRET = object({ data: STRING_MAP, stringData: STRING_MAP });
const DEPLOYMENT = object({
  spec: struct({ selector: LABEL_SELECTOR, template: POD_TEMPLATE_SPEC }),
  status: struct({ conditions: CONDITIONS }),
});
const STATEFUL_SET = object({
  spec: struct({ selector: LABEL_SELECTOR, template: POD_TEMPLATE_SPEC, volumeClaimTemplates: atomicList(OPEN) }),
  status: struct({ conditions: CONDITIONS }),
});
const POD = object({
  spec: POD_SPEC,
  status: struct({ conditions: CONDITIONS, podIPs: listMap(struct({}), ["ip"]) }),
});
const SERVICE = object({
  spec: struct({
    ports: listMap(struct({}), ["port", "protocol"], { protocol: "TCP" }),
    selector: STRING_MAP,
    clusterIPs: ATOMIC_LIST,
  }),
});
const NODE = object({ spec: struct({ taints: atomicList(OPEN) }), status: struct({ conditions: CONDITIONS }) });
const NAMESPACE = object({ spec: struct({ finalizers: ATOMIC_LIST }), status: struct({ conditions: CONDITIONS }) });
const LEASE = object({ spec: struct({}) });
const CORE_EVENT = object({ involvedObject: struct({}), source: struct({}) });
const EVENTS_EVENT = object({ regarding: struct({}), related: struct({}), deprecatedSource: struct({}) });

const BUILTIN: ReadonlyMap<string, TypeDef> = new Map([
  ["/ConfigMap", CONFIG_MAP],
  ["/Secret", SECRET],
  ["/Pod", POD],
  ["/Service", SERVICE],
  ["/Node", NODE],
  ["/Namespace", NAMESPACE],
  ["/Event", CORE_EVENT],
  ["apps/Deployment", DEPLOYMENT],
  ["apps/StatefulSet", STATEFUL_SET],
  ["coordination.k8s.io/Lease", LEASE],
  ["events.k8s.io/Event", EVENTS_EVENT],
]);

/**
 * The schema of a custom resource without an OpenAPI schema (or with `x-kubernetes-preserve-unknown-fields` at the
 * root): `apiVersion`, `kind` and `metadata` typed, every other field deduced (granular maps, atomic lists).
 */
export const CUSTOM_RESOURCE_SCHEMA: TypeDef = {
  type: "struct",
  fields: { apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META },
};

/** The schema of a kind: a built-in from the table above, any other built-in as an open struct, custom untyped. */
export function schemaFor(group: string, kind: string, custom: boolean): TypeDef {
  if (custom) return CUSTOM_RESOURCE_SCHEMA;
  return BUILTIN.get(`${group}/${kind}`) ?? object({});
}
