// One field validation failure, as apimachinery's `pkg/util/validation/field/errors.go` (`field.Error`, its
// `ErrorBody` and `Error`) prints it. `newInvalid` (errors.ts) turns a list of them into a 422 StatusError.

/** `field.ErrorType`: the kinds of field failure (each is also a `metav1.CauseType`, a cause's `reason`). */
export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid";

/** One field validation failure (`field.Error`). */
export interface FieldError {
  readonly type: FieldErrorType;
  /** Path of the field, e.g. `metadata.name`. */
  readonly field: string;
  /** The offending value, when it is shown (Invalid, NotSupported, Duplicate). */
  readonly badValue?: string | number | boolean;
  /**
   * The offending value already printed as Go prints a map or struct (`map[string]string{"a":"b"}`,
   * `&LabelSelector{…}`): shown verbatim instead of {@link badValue}.
   */
  readonly printedValue?: string;
  readonly detail?: string;
}

/** `field.Error.ErrorBody()`: the message without the field path (a `StatusCause`'s `message`). */
export function fieldErrorBody(e: FieldError): string {
  const shown =
    e.printedValue ??
    (e.badValue === undefined ? "" : typeof e.badValue === "string" ? JSON.stringify(e.badValue) : `${e.badValue}`);
  const label: Record<FieldError["type"], string> = {
    FieldValueNotFound: "Not found",
    FieldValueRequired: "Required value",
    FieldValueDuplicate: "Duplicate value",
    FieldValueInvalid: "Invalid value",
    FieldValueNotSupported: "Unsupported value",
    FieldValueForbidden: "Forbidden",
    FieldValueTooLong: "Too long",
    FieldValueTooMany: "Too many",
    FieldValueTypeInvalid: "Invalid value",
  };
  let body = label[e.type];
  const showsValue =
    e.type === "FieldValueInvalid" ||
    e.type === "FieldValueTypeInvalid" ||
    e.type === "FieldValueNotSupported" ||
    e.type === "FieldValueDuplicate" ||
    e.type === "FieldValueTooMany";
  if (showsValue && (e.badValue !== undefined || e.printedValue !== undefined)) body += `: ${shown}`;
  if (e.detail !== undefined && e.detail !== "") body += `: ${e.detail}`;
  return body;
}

/** `field.Error.Error()`: `<field>: <body>`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}
