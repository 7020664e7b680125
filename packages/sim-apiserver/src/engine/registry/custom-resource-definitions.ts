import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { validateSchemaRules } from "../admission/cel/validation.js";
import type { PrinterColumn, SimResource } from "../resources.js";
import { COLLECTION_VERBS } from "../served-resource.js";
import { selectableFieldLabels, validateSelectableFields } from "./crd-selectable-fields.js";
import { deprecationWarningOf, servedVersionsOf, storageVersionOf } from "./custom-resource-versions.js";

/** `apiextensions.k8s.io/v1` `customresourcedefinitions`: cluster-scoped, short names `crd`, `crds`. */
export const CUSTOM_RESOURCE_DEFINITIONS: SimResource = Object.freeze({
  group: "apiextensions.k8s.io",
  version: "v1",
  resource: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  singularName: "customresourcedefinition",
  namespaced: false,
  shortNames: ["crd", "crds"],
  verbs: COLLECTION_VERBS,
  categories: ["api-extensions"],
  // apiextensions-apiserver's CRD REST has a status subresource: main-resource writes keep the stored status, and
  // the definition's conditions are written through /status (as its controllers do).
  subresources: ["status"],
});

/** The finalizer with which apiextensions-apiserver deletes a definition's objects before the definition. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * A version's `deprecationWarning` (`ValidateCustomResourceDefinitionVersion`): at most 256 characters, printable
 * UTF-8 only, and only on a version marked `deprecated`.
 */
function validateDeprecationWarning(v: Record<string, unknown>, at: string): FieldError[] {
  const w = v.deprecationWarning;
  if (w === undefined || w === null) return [];
  const text = String(w);
  const field = `${at}.deprecationWarning`;
  const errs: FieldError[] = [];
  if (text.length > 256)
    errs.push({ type: "FieldValueTooLong", field, badValue: text, detail: "must have at most 256 bytes" });
  if (v.deprecated !== true) {
    errs.push({ type: "FieldValueInvalid", field, badValue: text, detail: "can only be set for deprecated versions" });
  }
  if (/[\p{C}]/u.test(text)) {
    errs.push({
      type: "FieldValueInvalid",
      field,
      badValue: text,
      detail: "must only contain printable UTF-8 characters",
    });
  }
  return errs;
}

function dnsSubdomainErrors(name: string): string[] {
  const out: string[] = [];
  if (name.length > 253) out.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(name)) {
    out.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return out;
}

/**
 * `ValidateCustomResourceDefinition` (apiextensions-apiserver), the rules the simulator enforces: `metadata.name`
 * must be a DNS subdomain equal to `spec.names.plural + "." + spec.group`; `spec.group` required and a domain with a
 * dot; `spec.names.plural`/`kind` required (plural a DNS label); `spec.scope` `Cluster` or `Namespaced`; at least one
 * version, names unique DNS-1035 labels, exactly one of them the storage version, a `deprecationWarning` only on a
 * deprecated version (at most 256 printable characters), its `selectableFields` valid (`validateSelectableFields`).
 * Returns the field errors in upstream's order
 * and wording (empty: valid); `warnings` receives one line per `x-kubernetes-validations` expression the simulator
 * accepts but cannot evaluate (see `validateSchemaRules`); `celCompatibility` is the release (1.x) the rules'
 * CEL environment is that of (default 33, for kube-apiserver 1.34).
 */
export function validateCustomResourceDefinition(
  crd: KubeObject,
  warnings?: string[],
  celCompatibility?: number,
): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  const kind = typeof names.kind === "string" ? names.kind : "";
  const name = crd.metadata?.name ?? "";
  if (name === "") {
    errs.push({ type: "FieldValueRequired", field: "metadata.name", detail: "name or generateName is required" });
  } else {
    const msgs = dnsSubdomainErrors(name);
    if (name !== `${plural}.${group}`) msgs.push('must be spec.names.plural+"."+spec.group');
    for (const m of msgs) errs.push({ type: "FieldValueInvalid", field: "metadata.name", badValue: name, detail: m });
  }
  if (group === "") errs.push({ type: "FieldValueRequired", field: "spec.group" });
  else if (!group.includes(".")) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.group",
      badValue: group,
      detail: "should be a domain with at least one dot",
    });
  }
  const scope = typeof spec.scope === "string" ? spec.scope : "";
  if (scope === "") errs.push({ type: "FieldValueRequired", field: "spec.scope" });
  else if (scope !== "Cluster" && scope !== "Namespaced") {
    errs.push({
      type: "FieldValueNotSupported",
      field: "spec.scope",
      badValue: scope,
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) {
    errs.push({
      type: "FieldValueRequired",
      field: "spec.versions",
      detail: "must have exactly one version marked as storage version",
    });
  } else {
    // ValidateCustomResourceDefinitionSpec's loop: each version's name and own parts, then the rules across them.
    const seen = new Set<string>();
    let unique = true;
    versions.forEach((v, i) => {
      const at = `spec.versions[${i}]`;
      const vname = isObject(v) && typeof v.name === "string" ? v.name : "";
      if (seen.has(vname)) unique = false;
      seen.add(vname);
      if (!DNS1035_LABEL.test(vname) || vname.length > 63) {
        errs.push({ type: "FieldValueInvalid", field: `${at}.name`, badValue: vname, detail: DNS1035_MESSAGE });
      }
      // x-kubernetes-validations must compile (the CEL step of ValidateCustomResourceDefinition).
      const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
      errs.push(...validateSchemaRules(schema, `${at}.schema.openAPIV3Schema`, warnings, celCompatibility));
      errs.push(...validateDeprecationWarning(isObject(v) ? v : {}, at));
      errs.push(...validatePrinterColumns(isObject(v) ? v : {}, at));
      if (isObject(v)) errs.push(...validateSelectableFields(v, i));
    });
    const listed = `[${versions.map((v) => (isObject(v) && typeof v.name === "string" ? v.name : "")).join(" ")}]`;
    if (!unique) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.versions",
        badValue: listed,
        detail: "must contain unique version names",
      });
    }
    const storage = versions.filter((v) => isObject(v) && v.storage === true).length;
    if (storage !== 1) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.versions",
        badValue: `${storage} storage versions`,
        detail: "must have exactly one version marked as storage version",
      });
    }
  }
  if (plural === "") errs.push({ type: "FieldValueRequired", field: "spec.names.plural" });
  else if (!DNS1123_LABEL.test(plural)) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.names.plural",
      badValue: plural,
      detail:
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    });
  }
  if (kind === "") errs.push({ type: "FieldValueRequired", field: "spec.names.kind" });
  return errs;
}

/**
 * The served resource a definition declares (apiextensions-apiserver's `crdHandler` serving info) at its storage
 * version when that is served, else at its preferred served version: see {@link resourcesFromCrd}, which gives
 * every served version. Throws an Error naming what is missing for a definition that would not validate.
 */
export function resourceFromCrd(crd: KubeObject): SimResource {
  const all = resourcesFromCrd(crd);
  const storage = storageVersionOf(crd);
  return all.find((r) => r.version === storage) ?? all[0]!;
}

/**
 * The served resources a definition declares, one per version with `served: true`, in discovery order (the first
 * is the preferred version; `servedVersionsOf`): group, plural, kind, scope, short names, and each version's own
 * `schema.openAPIV3Schema`, `status` and `scale` subresources, `selectableFields` as field labels and deprecation `Warning`
 * (`customresource_handler.go`'s per-version serving info). Throws an Error naming what is missing for a
 * definition that would not validate, or when no version is served.
 *
 * Differences from kube-apiserver: conversion is always the `None` strategy (a `Webhook` strategy is served as
 * `None`).
 */
export function resourcesFromCrd(crd: KubeObject): SimResource[] {
  const spec = (crd as { spec?: Record<string, unknown> }).spec;
  if (typeof spec !== "object" || spec === null) throw new Error("CustomResourceDefinition: spec is required");
  const group = spec.group;
  if (typeof group !== "string" || group === "") throw new Error("CustomResourceDefinition: spec.group is required");
  const names = spec.names as Record<string, unknown> | undefined;
  const plural = names?.plural;
  const kind = names?.kind;
  if (typeof plural !== "string" || plural === "" || typeof kind !== "string" || kind === "") {
    throw new Error("CustomResourceDefinition: spec.names.plural and spec.names.kind are required");
  }
  const served = servedVersionsOf(crd);
  if (served.length === 0) throw new Error("CustomResourceDefinition: spec.versions needs a served version");
  const scope = spec.scope ?? "Namespaced";
  if (scope !== "Namespaced" && scope !== "Cluster") {
    throw new Error(`CustomResourceDefinition: spec.scope must be Namespaced or Cluster, got ${JSON.stringify(scope)}`);
  }
  const shortNames = Array.isArray(names?.shortNames) ? (names.shortNames as string[]) : undefined;
  return served.map((version): SimResource => {
    const subresources = version.subresources as { status?: unknown; scale?: unknown } | undefined;
    const status = typeof subresources === "object" && subresources !== null && subresources.status !== undefined;
    const s = isObject(subresources?.scale) ? subresources.scale : undefined;
    const scale =
      s !== undefined && typeof s.specReplicasPath === "string" && typeof s.statusReplicasPath === "string"
        ? {
            specReplicasPath: s.specReplicasPath,
            statusReplicasPath: s.statusReplicasPath,
            ...(typeof s.labelSelectorPath === "string" && { labelSelectorPath: s.labelSelectorPath }),
          }
        : undefined;
    const warning = deprecationWarningOf(crd, version);
    const columns = printerColumnsOf(version);
    // `selectableFields` (CustomResourceFieldSelectors): the version's field labels for fieldSelector.
    const selectable = selectableFieldLabels(version);
    return {
      group,
      version: version.name as string,
      resource: plural,
      kind,
      singularName: typeof names?.singular === "string" ? names.singular : kind.toLowerCase(),
      namespaced: scope === "Namespaced",
      verbs: COLLECTION_VERBS,
      ...(shortNames !== undefined && { shortNames }),
      ...(selectable.length > 0 && { fieldLabels: selectable }),
      ...((status || scale !== undefined) && {
        subresources: [...(status ? ["status"] : []), ...(scale !== undefined ? ["scale"] : [])],
      }),
      ...(scale !== undefined && { scale }),
      custom: true,
      ...(typeof names?.listKind === "string" && names.listKind !== "" && { listKind: names.listKind }),
      ...(isObject(version.schema) &&
        isObject(version.schema.openAPIV3Schema) && { openAPIV3Schema: version.schema.openAPIV3Schema }),
      ...(warning !== undefined && { deprecationWarning: warning }),
      ...(columns.length > 0 && { printerColumns: columns }),
    };
  });
}

/** A version's `additionalPrinterColumns` that name a column, a type and a JSONPath. */
function printerColumnsOf(version: Record<string, unknown>): PrinterColumn[] {
  const cols = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns : [];
  return cols.flatMap((c): PrinterColumn[] => {
    if (!isObject(c) || typeof c.name !== "string" || typeof c.type !== "string" || typeof c.jsonPath !== "string")
      return [];
    return [
      {
        name: c.name,
        type: c.type,
        jsonPath: c.jsonPath,
        ...(typeof c.format === "string" && { format: c.format }),
        ...(typeof c.description === "string" && { description: c.description }),
        ...(typeof c.priority === "number" && { priority: c.priority }),
      },
    ];
  });
}

const PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const PRINTER_COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

/**
 * `ValidateCustomResourceColumnDefinition`: a column needs a name, a type of {@link PRINTER_COLUMN_TYPES}, a format
 * (when given) of {@link PRINTER_COLUMN_FORMATS}, and a JSONPath.
 */
function validatePrinterColumns(v: Record<string, unknown>, at: string): FieldError[] {
  const cols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
  const errs: FieldError[] = [];
  cols.forEach((c, i) => {
    const col = isObject(c) ? c : {};
    const field = `${at}.additionalPrinterColumns[${i}]`;
    if (typeof col.name !== "string" || col.name === "")
      errs.push({ type: "FieldValueRequired", field: `${field}.name` });
    const type = typeof col.type === "string" ? col.type : "";
    const types = PRINTER_COLUMN_TYPES.map((t) => JSON.stringify(t)).join(", ");
    if (type === "")
      errs.push({
        type: "FieldValueRequired",
        field: `${field}.type`,
        detail: `must be one of ${PRINTER_COLUMN_TYPES.join(",")}`,
      });
    else if (!PRINTER_COLUMN_TYPES.includes(type)) {
      errs.push({
        type: "FieldValueNotSupported",
        field: `${field}.type`,
        badValue: type,
        detail: `supported values: ${types}`,
      });
    }
    const format = typeof col.format === "string" ? col.format : "";
    if (format !== "" && !PRINTER_COLUMN_FORMATS.includes(format)) {
      const formats = PRINTER_COLUMN_FORMATS.map((t) => JSON.stringify(t)).join(", ");
      errs.push({
        type: "FieldValueNotSupported",
        field: `${field}.format`,
        badValue: format,
        detail: `supported values: ${formats}`,
      });
    }
    if (typeof col.jsonPath !== "string" || col.jsonPath === "") {
      errs.push({ type: "FieldValueRequired", field: `${field}.jsonPath` });
    }
  });
  return errs;
}

/**
 * What apiextensions-apiserver's controllers write into a new definition: `spec.names.singular`/`listKind` defaults,
 * and a status with `acceptedNames`, `storedVersions` and the `NamesAccepted` and `Established` conditions (the
 * simulator establishes at once). Returns a new object.
 */
export function establishedDefinition(crd: KubeObject, now: string): KubeObject {
  const out = structuredClone(crd);
  const spec = (isObject(out.spec) ? out.spec : {}) as Record<string, unknown>;
  const names = (isObject(spec.names) ? spec.names : {}) as Record<string, unknown>;
  const kind = typeof names.kind === "string" ? names.kind : "";
  if (typeof names.singular !== "string" || names.singular === "") names.singular = kind.toLowerCase();
  if (typeof names.listKind !== "string" || names.listKind === "") names.listKind = `${kind}List`;
  spec.names = names;
  out.spec = spec;
  const versions = Array.isArray(spec.versions) ? (spec.versions as Array<Record<string, unknown>>) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: "True",
    lastTransitionTime: now,
    reason,
    message,
  });
  out.status = {
    conditions: [
      condition("NamesAccepted", "NoConflicts", "no conflicts found"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
    acceptedNames: { ...names },
    storedVersions: storage === undefined ? [] : [storage],
  };
  return out;
}

/**
 * `SetCRDCondition` of `Terminating=True` with `reason`/`message`: a new object with the condition added or updated
 * (the transition time kept when the status does not change), or `crd` itself when nothing changes.
 */
export function withTerminatingCondition(crd: KubeObject, reason: string, message: string, now: string): KubeObject {
  const status = isObject(crd.status) ? crd.status : {};
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Array<Record<string, unknown>>) : [];
  const old = conditions.find((c) => c.type === "Terminating");
  if (old !== undefined && old.status === "True" && old.reason === reason && old.message === message) return crd;
  const cond = {
    type: "Terminating",
    status: "True",
    lastTransitionTime: old !== undefined && old.status === "True" ? old.lastTransitionTime : now,
    reason,
    message,
  };
  const out = structuredClone(crd);
  out.status = {
    ...status,
    conditions:
      old === undefined ? [...conditions, cond] : conditions.map((c) => (c.type === "Terminating" ? cond : c)),
  };
  return out;
}
