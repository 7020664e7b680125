import { type FieldError, isQualifiedName } from "@informer-ts/apimachinery";
import { objectAt, stringAt } from "./common.js";

/** `TotalAnnotationSizeLimitB`: keys and values of all annotations together (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * `ValidateAnnotations`: every key a qualified name (on `metadata.annotations`, as upstream, keys in sorted order),
 * and at most 256 KiB of keys and values (`metadata.annotations: Too long: may not be more than 262144 bytes`).
 */
export function validateAnnotations(value: unknown, path = "metadata.annotations"): FieldError[] {
  const errs: FieldError[] = [];
  const annotations = objectAt(value);
  if (annotations === undefined) return errs;
  let size = 0;
  for (const key of Object.keys(annotations).sort()) {
    for (const detail of isQualifiedName(key.toLowerCase()))
      errs.push({ type: "FieldValueInvalid", field: path, badValue: key, detail });
    size += key.length + Buffer.byteLength(stringAt(annotations[key]));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
    errs.push({
      type: "FieldValueTooLong",
      field: path,
      detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  return errs;
}
