import {
  type FieldError,
  isQualifiedName,
  type KubeObject,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegmentName,
  type ValidateNameFunc,
  validateObjectMetaName,
} from "@informer-ts/apimachinery";
import type { SimResource } from "../resources.js";
import { nameIsIPAddress } from "./ip-address-name.js";

/** The finalizer the garbage collector honours for orphaning dependents (`metav1.FinalizerOrphanDependents`). */
export const FINALIZER_ORPHAN = "orphan";
/** The finalizer of foreground deletion (`metav1.FinalizerDeleteDependents`). */
export const FINALIZER_FOREGROUND = "foregroundDeletion";
/** The namespace finalizer of the namespace controller (`core.FinalizerKubernetes`). */
export const FINALIZER_KUBERNETES = "kubernetes";

const STANDARD_FINALIZERS = new Set([FINALIZER_ORPHAN, FINALIZER_FOREGROUND, FINALIZER_KUBERNETES]);

function quoteGo(v: unknown): string {
  return JSON.stringify(v);
}

/**
 * `ValidateFinalizerName` of apimachinery (every finalizer a qualified name), plus, for built-in kinds, kube's
 * `validateKubeFinalizerName`: a name without a `/` must be one of the standard finalizers (`kubernetes`, `orphan`,
 * `foregroundDeletion`). Errors are on `metadata.finalizers[i]`.
 */
export function validateFinalizers(finalizers: unknown, builtin: boolean, path = "metadata.finalizers"): FieldError[] {
  const errs: FieldError[] = [];
  if (finalizers === undefined || finalizers === null) return errs;
  if (!Array.isArray(finalizers)) {
    return [
      { type: "FieldValueInvalid", field: path, badValue: String(finalizers), detail: "must be a list of strings" },
    ];
  }
  finalizers.forEach((f, i) => {
    const field = `${path}[${i}]`;
    const name = String(f);
    const msgs = isQualifiedName(name);
    for (const detail of msgs) errs.push({ type: "FieldValueInvalid", field, badValue: name, detail });
    if (msgs.length === 0 && builtin && !name.includes("/") && !STANDARD_FINALIZERS.has(name)) {
      errs.push({
        type: "FieldValueInvalid",
        field,
        badValue: name,
        detail: "name is neither a standard finalizer name nor is it fully qualified",
      });
    }
  });
  return errs;
}

/**
 * `ValidateOwnerReferences`: each reference needs a version in `apiVersion`, a `kind`, a `name` and a `uid`
 * (`Invalid value: "": must not be empty`, on `metadata.ownerReferences.<field>` without an index, as upstream), and
 * at most one may have `controller: true`.
 */
export function validateOwnerReferences(refs: unknown, path = "metadata.ownerReferences"): FieldError[] {
  const errs: FieldError[] = [];
  if (refs === undefined || refs === null) return errs;
  if (!Array.isArray(refs)) {
    return [{ type: "FieldValueInvalid", field: path, badValue: String(refs), detail: "must be a list" }];
  }
  let firstController = "";
  for (const raw of refs) {
    const ref = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const str = (v: unknown): string => (typeof v === "string" ? v : "");
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    if (version === "") {
      errs.push({
        type: "FieldValueInvalid",
        field: `${path}.apiVersion`,
        badValue: apiVersion,
        detail: "version must not be empty",
      });
    }
    for (const f of ["kind", "name", "uid"] as const) {
      if (str(ref[f]) === "")
        errs.push({ type: "FieldValueInvalid", field: `${path}.${f}`, badValue: "", detail: "must not be empty" });
    }
    if (ref.controller === true) {
      const cur = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController !== "") {
        errs.push({
          type: "FieldValueInvalid",
          field: path,
          badValue: "",
          detail: `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`,
        });
      } else firstController = cur;
    }
  }
  return errs;
}

/** The kind's name rule: Namespaces are DNS labels, IPAddresses canonical IP addresses, the rest DNS subdomains. */
function nameRuleOf(r: SimResource): ValidateNameFunc {
  if (r.group === "" && r.resource === "namespaces") return nameIsDNSLabel;
  if (r.group === "networking.k8s.io" && r.resource === "ipaddresses") return nameIsIPAddress;
  if (r.group === "rbac.authorization.k8s.io") return nameIsPathSegmentName;
  return nameIsDNSSubdomain;
}

/**
 * `ValidateObjectMeta` of a create (name rule, namespace, labels, finalizers, owner references) for an object of
 * `r`, with the kind's name rule ({@link nameRuleOf}).
 */
export function validateObjectMeta(r: SimResource, obj: KubeObject): FieldError[] {
  const meta = obj.metadata ?? {};
  return [
    ...validateObjectMetaName(meta, {
      requiresNamespace: r.namespaced,
      nameFn: nameRuleOf(r),
    }),
    // The core rule (a name without "/" must be a standard finalizer) is kubernetes' own validation; custom
    // resources and apiextensions' CustomResourceDefinitions are validated by apimachinery's (a qualified name).
    ...validateFinalizers(meta.finalizers, r.custom !== true && r.group !== "apiextensions.k8s.io"),
    ...validateOwnerReferences(meta.ownerReferences),
  ];
}

/**
 * `ValidateObjectMetaUpdate`: {@link validateObjectMeta} plus the update rules — `uid` and `creationTimestamp` are
 * immutable (the registry already copied them when absent), and no finalizer may be added to an object that is being
 * deleted (`Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers
 * []string{"x"}`).
 */
export function validateObjectMetaUpdate(r: SimResource, obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateObjectMeta(r, obj);
  const meta = obj.metadata ?? {};
  const oldMeta = old.metadata ?? {};
  if (meta.uid !== oldMeta.uid) {
    errs.push({
      type: "FieldValueInvalid",
      field: "metadata.uid",
      badValue: String(meta.uid ?? ""),
      detail: "field is immutable",
    });
  }
  if (oldMeta.deletionTimestamp !== undefined) {
    const before = new Set(Array.isArray(oldMeta.finalizers) ? oldMeta.finalizers : []);
    const added = [...new Set(Array.isArray(meta.finalizers) ? meta.finalizers : [])]
      .filter((f) => !before.has(f))
      .sort();
    if (added.length > 0) {
      errs.push({
        type: "FieldValueForbidden",
        field: "metadata.finalizers",
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map(quoteGo).join(", ")}}`,
      });
    }
  }
  return errs;
}
