import type { ResourceDescriptor } from "@informer-ts/apimachinery";
import { BUILTIN_DEFINITIONS, builtinRootOf, type OpenApiSchema } from "@informer-ts/sim-apiserver/engine";
import fc from "fast-check";
import { type GeneratedSchema, schemaArb } from "./schema-arbitrary.js";

/** A field a built-in kind's generated objects vary, with what the kind's validation asks beyond its schema. */
interface VariedField {
  readonly path: string;
  /** Bounds or values the schema does not state but validation checks (`activeDeadlineSeconds` > 0, a phase). */
  readonly narrow?: GeneratedSchema;
  /** Always set, never removed: validation requires the field (a Pod's containers). */
  readonly required?: true;
}

/**
 * How the kit writes one built-in kind: the smallest object its validation admits (the essentials the trimmed OpenAPI
 * document cannot state: it has no `required` and no enums), and the fields a spec change or a status write varies,
 * each generated from the kind's OpenAPI definition at that path.
 */
interface BuiltinKind {
  readonly base: (name: string) => Record<string, unknown>;
  readonly spec: readonly VariedField[];
  readonly status?: readonly VariedField[];
}

const container = (image = "busybox") => ({ name: "main", image });
const podTemplate = (name: string, restartPolicy?: string) => ({
  metadata: { labels: { app: name } },
  spec: { containers: [container()], ...(restartPolicy !== undefined && { restartPolicy }) },
});
const workload = (name: string) => ({
  spec: { selector: { matchLabels: { app: name } }, template: podTemplate(name) },
});
const replicaStatus: readonly VariedField[] = [
  { path: "status.observedGeneration" },
  { path: "status.replicas" },
  { path: "status.readyReplicas" },
];

/** The built-in kinds the kit generates objects of, by `group/resource`. */
const KINDS: Readonly<Record<string, BuiltinKind>> = {
  "/configmaps": { base: () => ({}), spec: [{ path: "data" }] },
  "/secrets": { base: () => ({ type: "Opaque" }), spec: [{ path: "data" }] },
  "/pods": {
    base: () => ({ spec: { containers: [container()] } }),
    // A Pod's spec is immutable but for its images (and fields that may only move one way, which a generator setting
    // each field afresh cannot respect): upstream's ValidatePodUpdate refuses any other change, so a spec change is a
    // new image for the one container.
    spec: [
      {
        path: "spec.containers",
        required: true,
        narrow: {
          type: "array",
          minItems: 1,
          maxItems: 1,
          items: {
            type: "object",
            required: ["name", "image"],
            properties: {
              name: { type: "string", enum: ["main"] },
              image: { type: "string", enum: ["busybox", "nginx", "registry.k8s.io/pause:3.10"] },
            },
          },
        },
      },
    ],
    status: [
      {
        path: "status.phase",
        narrow: { type: "string", enum: ["Pending", "Running", "Succeeded", "Failed", "Unknown"] },
      },
      { path: "status.message" },
    ],
  },
  "/services": {
    base: () => ({ spec: { ports: [{ port: 80 }] } }),
    spec: [{ path: "spec.publishNotReadyAddresses" }],
  },
  "/serviceaccounts": { base: () => ({}), spec: [{ path: "automountServiceAccountToken" }] },
  "/nodes": {
    base: () => ({}),
    spec: [{ path: "spec.unschedulable" }],
    status: [{ path: "status.phase", narrow: { type: "string", enum: ["Pending", "Running", "Terminated"] } }],
  },
  "apps/deployments": {
    base: workload,
    spec: [{ path: "spec.replicas" }, { path: "spec.minReadySeconds" }, { path: "spec.paused" }],
    status: replicaStatus,
  },
  "apps/statefulsets": {
    base: workload,
    spec: [{ path: "spec.replicas" }, { path: "spec.minReadySeconds" }],
    status: replicaStatus,
  },
  "apps/replicasets": {
    base: workload,
    spec: [{ path: "spec.replicas" }, { path: "spec.minReadySeconds" }],
    status: replicaStatus,
  },
  "apps/daemonsets": {
    base: workload,
    spec: [{ path: "spec.minReadySeconds" }],
    status: [{ path: "status.observedGeneration" }, { path: "status.numberReady" }],
  },
  "batch/jobs": {
    base: (name) => ({ spec: { template: podTemplate(name, "Never") } }),
    spec: [{ path: "spec.parallelism" }, { path: "spec.backoffLimit" }],
    status: [{ path: "status.active" }, { path: "status.succeeded" }],
  },
  "coordination.k8s.io/leases": {
    base: () => ({}),
    spec: [
      { path: "spec.holderIdentity" },
      { path: "spec.leaseDurationSeconds", narrow: { type: "integer", minimum: 1, maximum: 60 } },
    ],
  },
};

/** The definition at a dotted path under a kind's root definition (through `$ref`s), or a `RangeError` naming it. */
function schemaAt(root: string, path: string): OpenApiSchema {
  let s: OpenApiSchema | undefined = BUILTIN_DEFINITIONS[root];
  for (const part of path.split(".")) {
    while (s?.$ref !== undefined) s = BUILTIN_DEFINITIONS[s.$ref];
    s = s?.properties?.[part];
  }
  if (s === undefined) throw new RangeError(`the OpenAPI definition ${root} has no field ${path}`);
  return s;
}

/** Sets a dotted path in a JSON object (creating the objects on the way); `undefined` removes the field. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let o = target;
  for (const part of parts.slice(0, -1)) {
    const next = o[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) o[part] = {};
    o = o[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete o[last];
  else o[last] = value;
}

/**
 * Fields of a generated body: every varied path, its value from the schema at that path or `undefined` (the field is
 * removed), so that a write sets all of them.
 */
function variedArb(root: string, fields: readonly VariedField[]): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) {
    const value = schemaArb(f.narrow ?? (schemaAt(root, f.path) as GeneratedSchema), {
      definitions: BUILTIN_DEFINITIONS,
    });
    model[f.path] = f.required === true ? value : fc.option(value, { nil: undefined, freq: 3 });
  }
  return fc.record(model);
}

/** Whether the kit generates objects of this built-in resource ({@link builtinBodyArbs}). */
export function isGeneratedBuiltin(r: ResourceDescriptor<unknown>): boolean {
  return KINDS[`${r.group}/${r.resource}`] !== undefined;
}

/**
 * The generated bodies of a built-in resource's objects: `base(name)` is the smallest object its validation admits,
 * `spec` the values a spec change sets at the kind's varied paths (each from the simulator's OpenAPI definition at
 * that path), `status` those of a status write (absent for kinds without one). A resource the kit has no table for is
 * a `RangeError` naming it (give its objects with `HistoryResource.spec`).
 */
export function builtinBodyArbs(r: ResourceDescriptor<unknown>): {
  readonly base: (name: string) => Record<string, unknown>;
  readonly spec: fc.Arbitrary<Record<string, unknown>>;
  readonly status: fc.Arbitrary<Record<string, unknown>> | undefined;
} {
  const kind = KINDS[`${r.group}/${r.resource}`];
  const root = builtinRootOf({ group: r.group, version: r.version, kind: r.kind } as Parameters<
    typeof builtinRootOf
  >[0]);
  if (kind === undefined || root === undefined) {
    const known = Object.keys(KINDS)
      .map((k) => k.replace(/^\//, ""))
      .join(", ");
    throw new RangeError(
      `history.resources: the kit generates no objects of ${r.resource}${r.group === "" ? "" : `.${r.group}`} (it knows ${known}); give them with spec: <your arbitrary>`,
    );
  }
  return {
    base: kind.base,
    spec: variedArb(root, kind.spec),
    status: kind.status === undefined ? undefined : variedArb(root, kind.status),
  };
}
