import { isInteger, isSafeNumber, parse, stringify } from "lossless-json";

/**
 * JSON that keeps int64 values exact, as kube-apiserver does (Go decodes an unstructured integer into an `int64`,
 * so `9223372036854775807` in a custom resource comes back as written). `JSON.parse` turns every number into a
 * double and Node 20 has no `JSON.rawJSON`/source-text access, so a body that holds a digit run long enough to
 * exceed 2^53 is parsed with `lossless-json` (a maintained parser made for exactly this, with a number hook) and
 * each integer that a double cannot hold becomes a `bigint`; integers beyond the int64 range become doubles, as Go's
 * decoder falls back to `float64`. Every other body — all but a few — takes `JSON.parse`'s native path: the test for
 * 16 consecutive digits is one regular-expression scan, so built-in kinds keep their fast decode.
 *
 * {@link stringifyJson} is the other half: `JSON.stringify` first (objects without a `bigint`, the hot path), and
 * `lossless-json`'s `stringify`, which writes a `bigint` as its digits, only when the native one refuses one.
 */

/** A run of digits that may be an integer beyond `Number.MAX_SAFE_INTEGER` (2^53 − 1 has 16 digits). */
const LONG_DIGITS = /\d{16}/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer a double cannot hold but an int64 can: a `bigint`; anything else: a `number`. */
function parseNumber(text: string): number | bigint {
  if (!isInteger(text) || isSafeNumber(text)) return Number(text);
  const big = BigInt(text);
  return big >= INT64_MIN && big <= INT64_MAX ? big : Number(text);
}

/**
 * `JSON.parse` that keeps int64 integers beyond 2^53 as `bigint` (see the module comment). Duplicate keys keep the
 * last value, as `JSON.parse` does (strict field validation reports them from the text).
 *
 * @throws {SyntaxError} for text that is not JSON (V8's message on the native path, `lossless-json`'s otherwise).
 */
export function parseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return parse(text, null, { parseNumber, onDuplicateKey: ({ newValue }) => newValue });
}

/** `JSON.stringify`, writing a `bigint` as its digits (an int64 read by {@link parseJson}). */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !err.message.includes("BigInt")) throw err;
    return stringify(value) as string;
  }
}
