import type { KubeObject, ResourceDescriptor } from "@informer-ts/apimachinery";
import { customResource } from "@informer-ts/client";
import { resourceFromCrd, type SimResource } from "@informer-ts/sim-apiserver";
import fc from "fast-check";
import { builtinBodyArbs, setPath } from "./builtin-objects.js";
import { type GeneratedSchema, schemaArb } from "./schema-arbitrary.js";
import type { SimCluster } from "./sim-cluster.js";

/**
 * A resource a generated history writes besides the kit's ConfigMaps (see `HistoryOptions.resources`): a built-in
 * kind (objects from the simulator's OpenAPI definitions), a CustomResourceDefinition (objects from its
 * `openAPIV3Schema`; the case's cluster serves it), or any resource with your own arbitraries.
 */
export interface HistoryResource {
  /** The resource: a built-in descriptor (`builtinResources.pods`, …) or your own. With `crd` it may be omitted. */
  readonly resource?: ResourceDescriptor<unknown>;
  /**
   * A CustomResourceDefinition: the case's cluster serves it (no need to list it in `resources`), and `spec` and
   * `status` are generated from its storage version's `openAPIV3Schema`, so that generated objects pass its validation
   * (CEL rules excepted: give such fields with `spec`).
   */
  readonly crd?: KubeObject;
  /** Your arbitrary of the objects' `spec`, in place of the schema's. */
  readonly spec?: fc.Arbitrary<unknown>;
  /**
   * Status writes by "another controller": your arbitrary of `status`, or `false` for none. Default: from the schema,
   * when the kind has a status (through `/status` when the resource serves it).
   */
  readonly status?: fc.Arbitrary<unknown> | false;
  /** Object names (default the history's `names`). */
  readonly names?: readonly string[];
  /**
   * Objects are created carrying this finalizer: a delete then only marks them (`deletionTimestamp`), and a `release`
   * step — the other controller finishing its cleanup — removes it, which completes the delete.
   */
  readonly finalizer?: string;
  /**
   * Objects are created as children of the same-named object of this resource when it exists (an owner reference
   * with `controller: true`): the garbage collector deletes them with their owner.
   */
  readonly ownedBy?: ResourceDescriptor<unknown>;
  /**
   * Fields selectors read: dotted path → the values a field step sets (`undefined` removes the field), e.g.
   * `{ "spec.nodeName": ["node-a", "node-b"], "status.phase": ["Pending", "Running"] }`. A `status.` path is written
   * through `/status` when the resource serves it; a field step on an absent object creates it with the field.
   */
  readonly fields?: Readonly<Record<string, readonly (string | undefined)[]>>;
  /** Weight of this resource's steps among the history's writes (default 8, as the ConfigMap writes). */
  readonly weight?: number;
}

/** A resource as its generated steps carry it: what applying and printing them needs. */
export interface HistoryTarget {
  readonly resource: ResourceDescriptor<unknown>;
  /** `pods`, `widgets.example.com`: how the story names it. */
  readonly label: string;
  /** The smallest valid object of that name (without apiVersion, kind and metadata). */
  base(name: string): Record<string, unknown>;
  readonly statusSubresource: boolean;
  readonly finalizer?: string;
  readonly ownedBy?: ResourceDescriptor<unknown>;
}

/** A write to one of the history's {@link HistoryResource}s. `fields` map dotted paths to values (`undefined` removes). */
export type ResourceStep =
  | {
      /** Create the object, or change its spec (a new `generation` for kinds that keep one). */
      readonly kind: "resource-put";
      readonly target: HistoryTarget;
      readonly namespace: string;
      readonly name: string;
      readonly fields: Readonly<Record<string, unknown>>;
    }
  | {
      /** Another controller writes the object's status. */
      readonly kind: "resource-status";
      readonly target: HistoryTarget;
      readonly namespace: string;
      readonly name: string;
      readonly fields: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: "resource-field";
      readonly target: HistoryTarget;
      readonly namespace: string;
      readonly name: string;
      readonly path: string;
      readonly value: string | undefined;
    }
  | {
      /** Delete (held while the finalizer is on the object). */
      readonly kind: "resource-delete";
      readonly target: HistoryTarget;
      readonly namespace: string;
      readonly name: string;
    }
  | {
      /** Remove the resource's finalizer: what the other controller does once its cleanup is done. */
      readonly kind: "resource-release";
      readonly target: HistoryTarget;
      readonly namespace: string;
      readonly name: string;
    };

const labelOf = (r: ResourceDescriptor<unknown>) => (r.group === "" ? r.resource : `${r.resource}.${r.group}`);

/** The served version of a CRD as the simulator serves it, or an `Error` naming what is wrong with it. */
function crdResource(crd: KubeObject): SimResource {
  try {
    return resourceFromCrd(crd);
  } catch (err) {
    throw new RangeError(`history.resources: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Resources the case's cluster must serve for the history: those of every `crd`. */
export function historySimResources(resources: readonly HistoryResource[] | undefined): SimResource[] {
  return (resources ?? []).flatMap((r) => (r.crd === undefined ? [] : [crdResource(r.crd)]));
}

interface Resolved {
  readonly target: HistoryTarget;
  readonly spec: fc.Arbitrary<Record<string, unknown>>;
  readonly status: fc.Arbitrary<Record<string, unknown>> | undefined;
  readonly namespaced: boolean;
}

const under = (path: string) => (v: unknown) => ({ [path]: v });

function resolve(r: HistoryResource): Resolved {
  let resource = r.resource;
  let spec: fc.Arbitrary<Record<string, unknown>> | undefined;
  let status: fc.Arbitrary<Record<string, unknown>> | undefined;
  let base: (name: string) => Record<string, unknown> = () => ({});
  let statusSubresource = resource?.subresources?.includes("status") ?? false;
  if (r.crd !== undefined) {
    const served = crdResource(r.crd);
    resource ??= customResource({
      group: served.group,
      version: served.version,
      resource: served.resource,
      kind: served.kind,
      namespaced: served.namespaced,
      ...(served.subresources?.includes("status") === true && { subresources: ["status"] }),
    });
    statusSubresource = served.subresources?.includes("status") === true;
    const props = (served.openAPIV3Schema as GeneratedSchema | undefined)?.properties;
    if (props?.spec !== undefined) spec = schemaArb(props.spec).map(under("spec"));
    if (props?.status !== undefined) status = schemaArb(props.status).map(under("status"));
  } else if (resource === undefined) {
    throw new RangeError("history.resources: each entry needs resource (a descriptor) or crd");
  } else if (r.spec === undefined) {
    const builtin = builtinBodyArbs(resource);
    base = builtin.base;
    spec = builtin.spec;
    status = builtin.status;
  }
  if (r.spec !== undefined) spec = r.spec.map(under("spec"));
  if (r.status === false) status = undefined;
  else if (r.status !== undefined) status = r.status.map(under("status"));
  return {
    target: {
      resource,
      label: labelOf(resource),
      base,
      statusSubresource,
      ...(r.finalizer !== undefined && { finalizer: r.finalizer }),
      ...(r.ownedBy !== undefined && { ownedBy: r.ownedBy }),
    },
    spec: spec ?? fc.constant({}),
    status,
    namespaced: resource.namespaced,
  };
}

/** The steps of one {@link HistoryResource}: puts, status writes, field steps, deletes and finalizer releases. */
export function resourceStepArb(
  r: HistoryResource,
  defaults: { readonly namespaces: readonly string[]; readonly names: readonly string[] },
): fc.Arbitrary<ResourceStep> {
  const { target, spec, status, namespaced } = resolve(r);
  const namespace = namespaced ? fc.constantFrom(...defaults.namespaces) : fc.constant("");
  const name = fc.constantFrom(...(r.names ?? defaults.names));
  const t = fc.constant(target);
  const parts: { weight: number; arbitrary: fc.Arbitrary<ResourceStep> }[] = [
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("resource-put" as const), target: t, namespace, name, fields: spec }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("resource-delete" as const), target: t, namespace, name }) },
  ];
  if (status !== undefined) {
    parts.push({
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("resource-status" as const),
        target: t,
        namespace,
        name,
        fields: status,
      }),
    });
  }
  for (const [path, values] of Object.entries(r.fields ?? {})) {
    if (!Array.isArray(values) || values.length === 0) {
      throw new RangeError(
        `history.resources: field ${JSON.stringify(path)} of ${target.label} needs at least one value`,
      );
    }
    parts.push({
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("resource-field" as const),
        target: t,
        namespace,
        name,
        path: fc.constant(path),
        value: fc.constantFrom(...values),
      }),
    });
  }
  if (r.finalizer !== undefined) {
    parts.push({
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("resource-release" as const), target: t, namespace, name }),
    });
  }
  return fc.oneof(...parts);
}

const short = (v: unknown) => {
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};
const describeFields = (fields: Readonly<Record<string, unknown>>) => {
  const set = Object.entries(fields).map(([k, v]) => (v === undefined ? `-${k}` : `${k}=${short(v)}`));
  return set.length === 0 ? "(no fields)" : set.join(" ");
};

/** One line per step, as the story prints it. */
export function describeResourceStep(s: ResourceStep): string {
  const key = `${s.target.label} ${s.namespace === "" ? "" : `${s.namespace}/`}${s.name}`;
  switch (s.kind) {
    case "resource-put":
      return `put ${key} ${describeFields(s.fields)}`;
    case "resource-status":
      return `another controller writes ${key} ${describeFields(s.fields)}`;
    case "resource-field":
      return s.value === undefined ? `unset ${key} ${s.path}` : `set ${key} ${s.path}=${s.value}`;
    case "resource-delete":
      return `delete ${key}`;
    case "resource-release":
      return `another controller removes finalizer ${s.target.finalizer} from ${key}`;
  }
}

const clone = (o: KubeObject): Record<string, unknown> => structuredClone(o) as unknown as Record<string, unknown>;
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Applies a {@link ResourceStep} through the cluster's `KubeClient` (each request inside `cluster.run`, so it answers
 * under the modelled latency) and returns what happened for the timeline; a refused write is returned as its error
 * text, never thrown.
 */
export async function applyResourceStep(cluster: SimCluster, s: ResourceStep): Promise<string> {
  const c = cluster.client;
  const { resource } = s.target;
  const at = s.namespace === "" ? {} : { namespace: s.namespace };
  const current = () =>
    cluster
      .run(() => c.get(resource, s.name, at))
      .then(
        (o) => o as KubeObject,
        () => undefined,
      );
  const outcome = (o: unknown) => {
    const m = (o as KubeObject | undefined)?.metadata;
    if (m?.resourceVersion === undefined) return "ok";
    return `ok rv=${m.resourceVersion}${m.generation === undefined ? "" : ` generation=${m.generation}`}`;
  };
  const write = async (fn: () => Promise<unknown>, note = ""): Promise<string> => {
    try {
      return `${outcome(await cluster.run(fn))}${note}`;
    } catch (err) {
      return `refused: ${errText(err)}`;
    }
  };
  const create = async (fields: Readonly<Record<string, unknown>>) => {
    const body: Record<string, unknown> = {
      ...s.target.base(s.name),
      apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`,
      kind: resource.kind,
    };
    const metadata: Record<string, unknown> = { name: s.name, ...at };
    if (s.target.finalizer !== undefined) metadata.finalizers = [s.target.finalizer];
    let note = "";
    const ownerKind = s.target.ownedBy;
    if (ownerKind !== undefined) {
      const owner = await cluster.run(() => c.get(ownerKind, s.name, at)).catch(() => undefined);
      const m = (owner as KubeObject | undefined)?.metadata;
      if (m?.uid !== undefined) {
        const apiVersion = ownerKind.group === "" ? ownerKind.version : `${ownerKind.group}/${ownerKind.version}`;
        metadata.ownerReferences = [
          { apiVersion, kind: ownerKind.kind, name: s.name, uid: m.uid, controller: true, blockOwnerDeletion: true },
        ];
        note = ` (child of ${labelOf(ownerKind)} ${s.name})`;
      }
    }
    body.metadata = metadata;
    for (const [path, value] of Object.entries(fields)) setPath(body, path, value);
    return write(() => c.create(resource, body), note);
  };
  const update = (o: Record<string, unknown>, status: boolean) =>
    write(() => (status && s.target.statusSubresource ? c.updateStatus(resource, o) : c.update(resource, o)));
  switch (s.kind) {
    case "resource-put": {
      const cur = await current();
      if (cur === undefined) return create(s.fields);
      const o = clone(cur);
      for (const [path, value] of Object.entries(s.fields)) setPath(o, path, value);
      return update(o, false);
    }
    case "resource-status":
    case "resource-field": {
      const fields = s.kind === "resource-status" ? s.fields : { [s.path]: s.value };
      const cur = await current();
      if (cur === undefined) return s.kind === "resource-status" ? "absent" : create(fields);
      const o = clone(cur);
      for (const [path, value] of Object.entries(fields)) setPath(o, path, value);
      const isStatus = Object.keys(fields).every((p) => p === "status" || p.startsWith("status."));
      return update(o, isStatus);
    }
    case "resource-delete": {
      if ((await current()) === undefined) return "absent";
      const done = await write(() => c.delete(resource, s.name, at));
      const after = await current();
      return after?.metadata?.deletionTimestamp !== undefined
        ? `${done}; held by finalizers ${(after.metadata.finalizers ?? []).join(", ")}`
        : done;
    }
    case "resource-release": {
      const cur = await current();
      if (cur === undefined) return "absent";
      const finalizers = cur.metadata?.finalizers ?? [];
      if (!finalizers.includes(s.target.finalizer ?? "")) return "not held";
      const o = clone(cur);
      setPath(
        o,
        "metadata.finalizers",
        finalizers.filter((f) => f !== s.target.finalizer),
      );
      return update(o, false);
    }
  }
}
