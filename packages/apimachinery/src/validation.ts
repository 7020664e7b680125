import type { FieldError } from "./field-error.js";
import { utf8Length } from "./internal/go-strings.js";
import type { ObjectMeta } from "./types.js";

// Ports of k8s.io/apimachinery pkg/util/validation (DNS names) and pkg/api/validate/content (label keys and
// values). Each `is…` function returns the list of problems (empty when valid), worded as upstream words
// them, because the simulated apiserver puts these strings into 422 causes.

/** `validation.DNS1123LabelMaxLength`. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** `validation.DNS1123SubdomainMaxLength`. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** `content.LabelValueMaxLength`. */
export const LABEL_VALUE_MAX_LENGTH = 63;
const LABEL_KEY_NAME_MAX_LENGTH = 63;

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const labelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelValueFmt = `(${labelKeyFmt})?`;

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const labelKeyRe = new RegExp(`^${labelKeyFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/**
 * `validation.RegexError`: `<msg> (e.g. 'a',  or 'b', regex used for validation is '<re>')` (the double space
 * is upstream's), or without examples `<msg> (regex used for validation is '<re>')`.
 */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${re}')`;
}

/**
 * `validation.MaxLenError` (`must be no more than N characters`), used for object names. Label keys and
 * values use `content.MaxLenError`, which upstream words in bytes; see {@link maxLenBytesError}.
 */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `content.MaxLenError`: `must be no more than N bytes` (label keys and values). */
export function maxLenBytesError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/** `validation.EmptyError`. */
export const EMPTY_ERROR = "must be non-empty";

/**
 * `validation.IsDNS1123Label`: at most 63 characters of `[a-z0-9-]`, starting and ending alphanumeric.
 * A valid subdomain that is not a label gets `must not contain dots`.
 */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
  }
  return errs;
}

/** `validation.IsDNS1123Subdomain`: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value))
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"));
  return errs;
}

/**
 * `validation.IsQualifiedName` (= `content.IsLabelKey`): an optional DNS-1123 subdomain prefix and `/`, then a
 * name of at most 63 bytes of `[-A-Za-z0-9_.]` starting and ending alphanumeric. This is the label-key format.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else {
      // content.IsDNS1123Subdomain words its length limit in bytes.
      const msgs: string[] = [];
      if (utf8Length(prefix) > DNS1123_SUBDOMAIN_MAX_LENGTH) msgs.push(maxLenBytesError(DNS1123_SUBDOMAIN_MAX_LENGTH));
      if (!dns1123SubdomainRe.test(prefix))
        msgs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"));
      for (const m of msgs) errs.push(`prefix part ${m}`);
    }
  } else {
    errs.push(
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (utf8Length(name) > LABEL_KEY_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenBytesError(LABEL_KEY_NAME_MAX_LENGTH)}`);
  if (!labelKeyRe.test(name))
    errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** `validation.IsValidLabelValue` (= `content.IsLabelValue`): empty, or at most 63 bytes in label-key form. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenBytesError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  return errs;
}

/** A name validator (`ValidateNameFunc`): `prefix` is true for `generateName`, which may end in `-`. */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

// `maskTrailingDash`: a generateName may end with '-' because a suffix will be appended.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

/** `NameIsDNSSubdomain`: the name rule of most kinds (ConfigMap, Secret, Pod…). */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** `NameIsDNSLabel`: the name rule of Namespaces (and Services use DNS-1035, not ported). */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/**
 * `path.ValidatePathSegmentName`: the name rule of the RBAC kinds (`ValidateRBACName`), whose names may hold `:` —
 * only `.` and `..` (unless a prefix) and names with `/` or `%` are refused.
 */
export const nameIsPathSegmentName: ValidateNameFunc = (name, prefix) => {
  const errs: string[] = [];
  if (!prefix && (name === "." || name === "..")) errs.push(`may not be '${name}'`);
  for (const illegal of ["/", "%"]) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
};

/** Options of {@link validateObjectMetaName}. */
export interface ValidateObjectMetaOptions {
  /** Whether the kind is namespaced (then `metadata.namespace` is required and must be a DNS-1123 label). */
  readonly requiresNamespace: boolean;
  /** Name rule; default {@link nameIsDNSSubdomain}. */
  readonly nameFn?: ValidateNameFunc;
  /** Field path prefix; default `metadata`. */
  readonly fieldPath?: string;
}

/**
 * The identity part of `ValidateObjectMetaAccessor` (apimachinery pkg/api/validation/objectmeta.go):
 * `generateName` and `name` against `nameFn`, `name or generateName is required`, the namespace rule
 * (required and a DNS-1123 label when namespaced, `Forbidden: not allowed on this type` otherwise), a
 * non-negative `generation`, and labels (keys {@link isQualifiedName}, values {@link isValidLabelValue}).
 * Returns field errors in upstream order, ready for `newInvalid`.
 *
 * Differences from apimachinery: annotations, owner references, finalizers and managed fields are not
 * validated. A `generateName` is expected to have been turned into a `name` by the caller already, as the
 * registry does before validation.
 */
export function validateObjectMetaName(meta: ObjectMeta | undefined, opts: ValidateObjectMetaOptions): FieldError[] {
  const m = meta ?? {};
  const path = opts.fieldPath ?? "metadata";
  const nameFn = opts.nameFn ?? nameIsDNSSubdomain;
  const errs: FieldError[] = [];
  const generateName = typeof m.generateName === "string" ? m.generateName : "";
  const name = typeof m.name === "string" ? m.name : "";
  const namespace = typeof m.namespace === "string" ? m.namespace : "";
  if (generateName !== "") {
    for (const detail of nameFn(generateName, true))
      errs.push({ type: "FieldValueInvalid", field: `${path}.generateName`, badValue: generateName, detail });
  }
  if (name === "") {
    errs.push({ type: "FieldValueRequired", field: `${path}.name`, detail: "name or generateName is required" });
  } else {
    for (const detail of nameFn(name, false))
      errs.push({ type: "FieldValueInvalid", field: `${path}.name`, badValue: name, detail });
  }
  if (opts.requiresNamespace) {
    if (namespace === "") errs.push({ type: "FieldValueRequired", field: `${path}.namespace` });
    else
      for (const detail of nameIsDNSLabel(namespace, false))
        errs.push({ type: "FieldValueInvalid", field: `${path}.namespace`, badValue: namespace, detail });
  } else if (namespace !== "") {
    errs.push({ type: "FieldValueForbidden", field: `${path}.namespace`, detail: "not allowed on this type" });
  }
  if (typeof m.generation === "number" && m.generation < 0) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.generation`,
      badValue: m.generation,
      detail: "must be greater than or equal to 0",
    });
  }
  errs.push(...validateLabels(m.labels, `${path}.labels`));
  return errs;
}

/**
 * `v1validation.ValidateLabels`: every key must be a qualified name and every value a valid label value.
 * Each problem is one `FieldValueInvalid` error on `fieldPath` (upstream reports them all on the map's path).
 * Keys are checked in sorted order so the output is deterministic (Go iterates the map randomly).
 */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null || typeof labels !== "object") return errs;
  for (const key of Object.keys(labels).sort()) {
    for (const detail of isQualifiedName(key))
      errs.push({ type: "FieldValueInvalid", field: fieldPath, badValue: key, detail });
    const v = labels[key];
    const value = typeof v === "string" ? v : String(v);
    for (const detail of isValidLabelValue(value))
      errs.push({ type: "FieldValueInvalid", field: fieldPath, badValue: value, detail });
  }
  return errs;
}
