import type { FieldError } from "@informer-ts/apimachinery";

/** `MaxSelectableFields` (apiextensions validation): at most this many distinct selectable fields per version. */
export const MAX_SELECTABLE_FIELDS = 8;

const ALLOWED_TYPES = new Set(["string", "boolean", "integer"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Walks `jsonPath` (`.spec.host`: field names after dots; no array or map-key notation) through `schema`, as
 * apiextensions' `cel.ValidFieldPath` with array notation disallowed does. Returns the field path (`spec.host`) and
 * the schema it ends at, or the reason it does not refer to a field.
 */
export function resolveSelectableFieldPath(
  jsonPath: string,
  schema: unknown,
): { readonly path: string[]; readonly schema: Record<string, unknown> } | { readonly error: string } {
  const tokens = jsonPath.split(/([.[\]])/).filter((t) => t !== "");
  const path: string[] = [];
  let cur: unknown = schema;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === "[") return { error: "array notation is not allowed" };
    if (tok !== ".") return { error: `expected [ or . but got: ${tok}` };
    const name = tokens[++i];
    if (name === undefined) return { error: "unexpected end of JSON path" };
    if (name === "." || name === "[" || name === "]") return { error: "does not refer to a valid field" };
    const s = isObject(cur) ? cur : {};
    if (isObject(s.properties)) {
      const next = s.properties[name];
      if (!isObject(next)) return { error: "does not refer to a valid field" };
      cur = next;
    } else if (isObject(s.additionalProperties)) {
      cur = s.additionalProperties;
    } else {
      return { error: "does not refer to a valid field" };
    }
    path.push(name);
  }
  return { path, schema: isObject(cur) ? cur : {} };
}

/**
 * `ValidateCustomResourceSelectableFields` and its call for one version (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`): `spec.versions[i].selectableFields` needs the version's
 * `schema.openAPIV3Schema`; each `jsonPath` is required, must resolve in that schema (no array notation), must not be
 * under `metadata`, must end at a `string`, `boolean` or `integer` field, and must not repeat; at most
 * {@link MAX_SELECTABLE_FIELDS} distinct ones. Field errors in upstream's order and wording.
 */
export function validateSelectableFields(version: Record<string, unknown>, index: number): FieldError[] {
  const fields = version.selectableFields;
  if (!Array.isArray(fields) || fields.length === 0) return [];
  const base = `spec.versions[${index}].selectableFields`;
  const schema = isObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isObject(schema)) {
    return [
      {
        type: "FieldValueInvalid",
        field: base,
        badValue: "",
        detail: "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
      },
    ];
  }
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const field = `${base}[${i}].jsonPath`;
    const jsonPath = isObject(f) && typeof f.jsonPath === "string" ? f.jsonPath : "";
    if (jsonPath === "") {
      errs.push({ type: "FieldValueRequired", field });
      return;
    }
    const found = resolveSelectableFieldPath(jsonPath, schema);
    if ("error" in found) {
      errs.push({ type: "FieldValueInvalid", field, badValue: jsonPath, detail: `is an invalid path: ${found.error}` });
      return;
    }
    if (found.path[0] === "metadata") {
      errs.push({
        type: "FieldValueInvalid",
        field,
        badValue: jsonPath,
        detail: "must not point to fields in metadata",
      });
    }
    if (!ALLOWED_TYPES.has(found.schema.type as string)) {
      errs.push({
        type: "FieldValueInvalid",
        field,
        badValue: jsonPath,
        detail:
          "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
      });
    }
    const key = found.path.join(".");
    if (unique.has(key)) errs.push({ type: "FieldValueDuplicate", field, badValue: jsonPath });
    else unique.add(key);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) {
    errs.push({
      type: "FieldValueTooMany",
      field: base,
      badValue: unique.size,
      detail: `must have at most ${MAX_SELECTABLE_FIELDS} items`,
    });
  }
  return errs;
}

/**
 * The field labels a served version's `selectableFields` add to `metadata.name` and `metadata.namespace`: each
 * `jsonPath` without its leading dot (`.spec.host` → `spec.host`), the form `fieldSelector` names them in. A value
 * is the field's string, integer or boolean as text; an absent field is the empty string (apiextensions'
 * `customresource` strategy `GetAttrs` with selectable fields).
 */
export function selectableFieldLabels(version: Record<string, unknown>): string[] {
  const fields = Array.isArray(version.selectableFields) ? version.selectableFields : [];
  const out: string[] = [];
  for (const f of fields) {
    const p = isObject(f) && typeof f.jsonPath === "string" ? f.jsonPath : "";
    if (p.startsWith(".") && p.length > 1 && !out.includes(p.slice(1))) out.push(p.slice(1));
  }
  return out;
}
