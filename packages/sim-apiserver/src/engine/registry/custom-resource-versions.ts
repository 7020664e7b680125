import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import {
  defaultCustomResource,
  pruneCustomResource,
  type StructuralSchema,
} from "../admission/custom-resource-schema.js";
import { compareKubeVersions } from "../kube-aware-version.js";
import type { SimResource } from "../resources.js";

// The versions of one CustomResourceDefinition, as apiextensions-apiserver serves them
// (`pkg/apiserver/customresource_handler.go`'s per-version serving info, `pkg/apiserver/conversion/nop_converter.go`,
// the `storedVersions` bookkeeping of `pkg/registry/customresourcedefinition/strategy.go` and
// `ValidateCustomResourceDefinitionStoredVersions` of `pkg/apis/apiextensions/validation/validation.go`).

type Version = Record<string, unknown>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function specOf(crd: KubeObject): Record<string, unknown> {
  return isObject(crd.spec) ? crd.spec : {};
}

function versionsOf(crd: KubeObject): Version[] {
  const vs = specOf(crd).versions;
  return Array.isArray(vs) ? vs.filter((v): v is Version => isObject(v) && typeof v.name === "string") : [];
}

/** The name of the definition's storage version (`storage: true`), if one is marked. */
export function storageVersionOf(crd: KubeObject): string | undefined {
  return versionsOf(crd).find((v) => v.storage === true)?.name as string | undefined;
}

/**
 * The definition's served versions (`served: true`) in discovery order: by kube-aware version priority
 * (`version.CompareKubeAwareVersionStrings`), the first being the group's preferred version.
 */
export function servedVersionsOf(crd: KubeObject): Version[] {
  return versionsOf(crd)
    .filter((v) => v.served !== false)
    .sort((a, b) => compareKubeVersions(a.name as string, b.name as string));
}

/**
 * The `Warning` a request to a deprecated version gets (`customresource_handler.go`'s deprecation warning): the
 * version's `deprecationWarning` when set; else `<group>/<version> <Kind> is deprecated`, followed by
 * `; use <group>/<v> <Kind>` naming the highest-priority served, non-deprecated version that ranks above it, if
 * any. Undefined for a version that is not deprecated.
 */
export function deprecationWarningOf(crd: KubeObject, version: Version): string | undefined {
  if (version.deprecated !== true) return undefined;
  if (typeof version.deprecationWarning === "string") return version.deprecationWarning;
  const spec = specOf(crd);
  const group = typeof spec.group === "string" ? spec.group : "";
  const kind = isObject(spec.names) && typeof spec.names.kind === "string" ? spec.names.kind : "";
  const name = version.name as string;
  const text = `${group}/${name} ${kind} is deprecated`;
  const better = servedVersionsOf(crd).find(
    (v) => v.deprecated !== true && compareKubeVersions(v.name as string, name) < 0,
  );
  return better === undefined ? text : `${text}; use ${group}/${better.name as string} ${kind}`;
}

/**
 * Where a served version of a custom resource keeps its objects: the definition's one storage (`home`, the
 * resource its first storage version declared; etcd's prefix of the group/resource), converted with the `None`
 * strategy (`nopConverter`): only `apiVersion` changes — to the storage version on the way in, to the served version
 * on the way out. After each conversion the object is coerced to the target version's schema, as upstream's
 * `schemaCoercingConverter` and `schemaCoercingDecoder` do: pruned of what that schema does not specify (so a field
 * only one version declares does not survive a write through another), and, on the way out, defaulted
 * (`structuraldefaulting` on read). `managedFields` keep the versions their managers wrote.
 */
export function servedVersionView(r: SimResource, home: SimResource, storage: SimResource): SimResource {
  const stored = `${r.group}/${storage.version}`;
  const served = `${r.group}/${r.version}`;
  const schema = r.openAPIV3Schema as StructuralSchema | undefined;
  const storageSchema = storage.openAPIV3Schema as StructuralSchema | undefined;
  return {
    ...r,
    storageVersion: storage.version,
    storedAs: {
      resource: home,
      toStorage: (o) => {
        if (storageSchema === undefined || storage.version === r.version) {
          return o.apiVersion === stored ? o : { ...o, apiVersion: stored };
        }
        const out = structuredClone(o) as KubeObject;
        out.apiVersion = stored;
        pruneCustomResource(out as Record<string, unknown>, storageSchema);
        return out;
      },
      fromStorage: (o) => {
        if (schema === undefined && o.apiVersion === served) return o;
        const out = structuredClone(o) as KubeObject;
        out.apiVersion = served;
        if (schema !== undefined) {
          pruneCustomResource(out as Record<string, unknown>, schema);
          defaultCustomResource(out, schema);
        }
        return out;
      },
    },
  };
}

/**
 * `status.storedVersions` after a main-resource write (the definition strategy's `PrepareForUpdate`): the stored
 * list with the new storage version appended when it is not in it yet. A new array; `stored` unchanged.
 */
export function withStorageVersionRecorded(stored: unknown, crd: KubeObject): string[] {
  const list = Array.isArray(stored) ? stored.filter((v): v is string => typeof v === "string") : [];
  const storage = storageVersionOf(crd);
  return storage === undefined || list.includes(storage) ? [...list] : [...list, storage];
}

/**
 * `ValidateCustomResourceDefinitionStoredVersions`: `status.storedVersions` must not be empty, must hold the
 * storage version, and every entry must still be one of `spec.versions` (a version cannot be removed while objects
 * may be stored at it: the storage version migration removes it from `storedVersions` first).
 */
export function validateStoredVersions(crd: KubeObject): FieldError[] {
  const field = "status.storedVersions";
  const status = isObject(crd.status) ? crd.status : {};
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as unknown[]) : [];
  if (stored.length === 0) {
    return [{ type: "FieldValueInvalid", field, badValue: "[]", detail: "must have at least one stored version" }];
  }
  const errs: FieldError[] = [];
  const names = new Set(versionsOf(crd).map((v) => v.name as string));
  const storage = storageVersionOf(crd);
  if (storage !== undefined && !stored.includes(storage)) {
    errs.push({
      type: "FieldValueInvalid",
      field,
      badValue: storage,
      detail: `must have the storage version ${storage}`,
    });
  }
  stored.forEach((v, i) => {
    if (typeof v !== "string" || !names.has(v)) {
      errs.push({
        type: "FieldValueInvalid",
        field: `${field}[${i}]`,
        badValue: String(v),
        detail: "must appear in spec.versions",
      });
    }
  });
  return errs;
}
