import type { FieldError } from "@informer-ts/apimachinery";

/** A JSON object, or undefined for anything else. */
export function objectAt(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A list, or `[]` for anything else. */
export function listAt(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A string, or `""` for anything else. */
export function stringAt(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Go's `%#v` of a `map[string]string` (`map[string]string{"app":"x"}`), as field errors print a map bad value. */
export function goStringMap(m: Record<string, unknown> | undefined): string {
  if (m === undefined) return "map[string]string(nil)";
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(m[k]))}`).join(", ")}}`;
}

/** `ValidateNonnegativeField`: `<path>: Invalid value: -1: must be greater than or equal to 0`. */
export function nonNegative(value: unknown, field: string): FieldError[] {
  if (typeof value !== "number" || value >= 0) return [];
  return [{ type: "FieldValueInvalid", field, badValue: value, detail: "must be greater than or equal to 0" }];
}

/** `field.NotSupported`: `<path>: Unsupported value: "x": supported values: "a", "b"`. */
export function notSupported(value: string, field: string, supported: readonly string[]): FieldError {
  return {
    type: "FieldValueNotSupported",
    field,
    badValue: value,
    detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
  };
}

/** `validation.IsValidPortNum` as a field error: `must be between 1 and 65535, inclusive`. */
export function portNumber(value: unknown, field: string): FieldError[] {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535) return [];
  return [
    {
      type: "FieldValueInvalid",
      field,
      badValue: typeof value === "number" ? value : 0,
      detail: "must be between 1 and 65535, inclusive",
    },
  ];
}

/** `ValidateImmutableField`: `<path>: Invalid value: <new>: field is immutable` when the value changed. */
export function immutable(next: unknown, old: unknown, field: string, shown: string | number | boolean): FieldError[] {
  if (JSON.stringify(next) === JSON.stringify(old)) return [];
  return [{ type: "FieldValueInvalid", field, badValue: shown, detail: "field is immutable" }];
}
