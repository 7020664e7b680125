import { newBadRequest, newInvalid, type StatusError } from "@informer-ts/apimachinery";

/** `metav1.FieldValidation*`: what a write does with unknown and duplicate fields. */
export type FieldValidationDirective = "Strict" | "Warn" | "Ignore";

const DIRECTIVES: readonly string[] = ["Ignore", "Strict", "Warn"];

/** The options kind whose validation names a bad `fieldValidation` (`CreateOptions`, `UpdateOptions`, `PatchOptions`). */
export type WriteOptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions";

/**
 * The directive of a write (`fieldValidation` of handlers/rest.go): a given `Strict`, `Warn` or `Ignore`; absent or
 * `""` → `defaultDirective` (`Warn` since server-side field validation went beta in v1.25, `Ignore` before, where
 * the gate was off and the parameter unknown). Any other value is 422 `CreateOptions.meta.k8s.io "" is invalid:
 * fieldValidation: Unsupported value: "foo": supported values: "", "Ignore", "Strict", "Warn"`
 * (`ValidateFieldValidation`).
 */
export function fieldValidationDirective(
  value: string | undefined,
  kind: WriteOptionsKind,
  defaultDirective: FieldValidationDirective,
): FieldValidationDirective {
  if (value === undefined || value === "") return defaultDirective;
  if (DIRECTIVES.includes(value)) return value as FieldValidationDirective;
  throw newInvalid({ group: "meta.k8s.io", kind }, "", [
    {
      type: "FieldValueNotSupported",
      field: "fieldValidation",
      badValue: value,
      detail: `supported values: "", ${DIRECTIVES.map((d) => JSON.stringify(d)).join(", ")}`,
    },
  ]);
}

/** The strict decoding problems of one write body, in the decoder's wording. */
export function strictDecodingErrors(unknownFields: readonly string[], duplicateFields: readonly string[]): string[] {
  return [
    ...unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`),
    ...duplicateFields.map((f) => `duplicate field ${JSON.stringify(f)}`),
  ];
}

/**
 * The 400 of a strict decoding failure (`transformDecodeError` of a `runtime.strictDecodingError`):
 * `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo",
 * duplicate field "spec.replicas"`.
 */
export function strictDecodingError(kind: string, version: string, errors: readonly string[]): StatusError {
  return newBadRequest(
    `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${errors.join(", ")}`,
  );
}
