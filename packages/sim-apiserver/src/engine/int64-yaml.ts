import { parse, parseAllDocuments } from "yaml";

/**
 * YAML request bodies (create/update as `application/yaml`, server-side apply's `application/apply-patch+yaml`)
 * with int64 values kept exact, as {@link parseJson} keeps them in JSON: go-yaml decodes an integer into an `int64`
 * where it fits. A body with a digit run long enough to exceed 2^53 is parsed with the `yaml` library's own
 * `intAsBigInt` option, then each integer a double holds exactly goes back to a `number` and each one beyond the
 * int64 range becomes a double (go-yaml's `float64` fallback); other bodies take the ordinary path.
 */

/** A run of digits that may be an integer beyond `Number.MAX_SAFE_INTEGER`. */
const LONG_DIGITS = /\d{16}/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `bigint`s narrowed in place: safe ones to `number`, out-of-int64 ones to doubles; returns the value. */
function narrow(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
    return value >= INT64_MIN && value <= INT64_MAX ? value : Number(value);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = narrow(value[i]);
  } else if (typeof value === "object" && value !== null) {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = narrow(o[k]);
  }
  return value;
}

/** `yaml`'s `parse` keeping int64 integers beyond 2^53 as `bigint`. */
export function parseYamlInt64(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return parse(text);
  return narrow(parse(text, { intAsBigInt: true }));
}

/** `yaml`'s `parseAllDocuments` with int64s kept (see {@link parseYamlInt64}); `toJS` of its documents via {@link narrowInt64}. */
export function parseYamlDocumentsInt64(text: string): ReturnType<typeof parseAllDocuments> {
  return LONG_DIGITS.test(text) ? parseAllDocuments(text, { intAsBigInt: true }) : parseAllDocuments(text);
}

/** The value of a document parsed by {@link parseYamlDocumentsInt64}, with its `bigint`s narrowed. */
export function narrowInt64(value: unknown): unknown {
  return narrow(value);
}
