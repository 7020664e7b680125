// Messages whose JSON form is not an object of their fields: meta/v1 Time and MicroTime, intstr IntOrString, resource Quantity,
// meta/v1 FieldsV1 and the ExtraValue of authentication/authorization/certificates v1 — each decoded into what Go's JSON
// marshaller writes for it.
import type { DecodeContext } from "./decode-message.js";
import { type WireReader, WireType } from "./wire-reader.js";

/** Unix seconds of Go's zero `time.Time` (0001-01-01T00:00:00Z): how a zero `metav1.Time` travels in protobuf. */
const GO_ZERO_TIME_UNIX = -62135596800;
/** 9999-12-31T23:59:59Z: Go's `Time.MarshalJSON` refuses later years. */
const MAX_RFC3339_UNIX = 253402300799;

/**
 * Reads the fields of a small message into a number → value map; other fields are skipped and, with a context,
 * reported as unknown fields of `message`.
 */
function readFields(
  r: WireReader,
  path: string,
  wanted: Record<number, "varint" | "string" | "bytes">,
  message: string,
  ctx?: DecodeContext,
): Map<number, bigint | string | Uint8Array> {
  const out = new Map<number, bigint | string | Uint8Array>();
  while (!r.done()) {
    const tag = r.tag(path);
    const kind = wanted[tag.field];
    if (kind === undefined) {
      ctx?.unknownFields.push({ message, path, field: tag.field, wireType: tag.wireType, offset: tag.offset });
      r.skip(tag, path);
      continue;
    }
    const want = kind === "varint" ? WireType.Varint : WireType.LengthDelimited;
    if (tag.wireType !== want) {
      r.fail(`field ${tag.field} has wire type ${tag.wireType}, expected ${want}`, path, tag.offset);
    }
    out.set(tag.field, kind === "varint" ? r.varint(path) : kind === "string" ? r.string(path) : r.bytesValue(path));
  }
  return out;
}

/**
 * The instant of a `metav1.Time` or `metav1.MicroTime` (`seconds` = 1, `nanos` = 2) as Unix seconds and
 * nanoseconds, or null for the zero time (an empty message or Go's zero instant); years outside 0001-9999 fail.
 */
function readInstant(
  r: WireReader,
  path: string,
  message: "Time" | "MicroTime",
  ctx?: DecodeContext,
): { seconds: bigint; nanos: bigint } | null {
  const at = r.offset;
  const f = readFields(r, path, { 1: "varint", 2: "varint" }, message, ctx);
  const seconds = BigInt.asIntN(64, (f.get(1) as bigint | undefined) ?? 0n);
  const nanos = BigInt.asIntN(32, (f.get(2) as bigint | undefined) ?? 0n);
  if (!f.has(1) && !f.has(2)) return null;
  if (seconds === BigInt(GO_ZERO_TIME_UNIX) && nanos === 0n) return null;
  if (seconds < BigInt(GO_ZERO_TIME_UNIX) || seconds > BigInt(MAX_RFC3339_UNIX)) {
    return r.fail(`time ${seconds}s is outside years 0001-9999`, path, at);
  }
  if (nanos < 0n || nanos > 999_999_999n) return r.fail(`nanos ${nanos} is outside 0-999999999`, path, at);
  return { seconds, nanos };
}

/** Whole seconds as RFC 3339 in UTC without the zone letter: `2006-01-02T15:04:05`. */
function isoSeconds(seconds: bigint): string {
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
}

/**
 * `metav1.Time` as its JSON: RFC 3339 in UTC with whole seconds (nanoseconds are dropped, as `metav1.Time` does),
 * or `null` for the zero time.
 */
export function decodeTime(r: WireReader, path: string, ctx?: DecodeContext): string | null {
  const t = readInstant(r, path, "Time", ctx);
  return t === null ? null : `${isoSeconds(t.seconds)}Z`;
}

/**
 * `metav1.MicroTime` as its JSON: RFC 3339 in UTC with exactly six fractional digits (apimachinery's
 * `RFC3339Micro` layout, pkg/apis/meta/v1/micro_time.go; nanoseconds below a microsecond are dropped), or `null`
 * for the zero time.
 */
export function decodeMicroTime(r: WireReader, path: string, ctx?: DecodeContext): string | null {
  const t = readInstant(r, path, "MicroTime", ctx);
  return t === null ? null : `${isoSeconds(t.seconds)}.${(t.nanos / 1000n).toString().padStart(6, "0")}Z`;
}

/** `intstr.IntOrString` (`type` = 1: 0 int, 1 string; `intVal` = 2; `strVal` = 3) as a JSON number or string. */
export function decodeIntOrString(r: WireReader, path: string, ctx?: DecodeContext): number | string {
  const f = readFields(r, path, { 1: "varint", 2: "varint", 3: "string" }, "IntOrString", ctx);
  const type = (f.get(1) as bigint | undefined) ?? 0n;
  if (type === 1n) return (f.get(3) as string | undefined) ?? "";
  return Number(BigInt.asIntN(32, (f.get(2) as bigint | undefined) ?? 0n));
}

/** `resource.Quantity` (`string` = 1) as its JSON string; an empty quantity is Go's zero Quantity, `"0"`. */
export function decodeQuantity(r: WireReader, path: string, ctx?: DecodeContext): string {
  const f = readFields(r, path, { 1: "string" }, "Quantity", ctx);
  const s = (f.get(1) as string | undefined) ?? "";
  return s === "" ? "0" : s;
}

/** `metav1.FieldsV1` (`Raw` = 1, JSON bytes) as the JSON value it holds. */
export function decodeFieldsV1(r: WireReader, path: string, ctx?: DecodeContext): unknown {
  const at = r.offset;
  const f = readFields(r, path, { 1: "bytes" }, "FieldsV1", ctx);
  const raw = f.get(1) as Uint8Array | undefined;
  if (raw === undefined || raw.length === 0) return null;
  try {
    return JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch (err) {
    return r.fail(`FieldsV1 is not JSON: ${err instanceof Error ? err.message : String(err)}`, path, at);
  }
}

/**
 * `ExtraValue` (`repeated string items = 1`; Go's `type ExtraValue []string` in authentication/v1, authorization/v1 and
 * certificates/v1) as its JSON: an array of the strings, in order.
 */
export function decodeExtraValue(r: WireReader, path: string, ctx?: DecodeContext): string[] {
  const out: string[] = [];
  while (!r.done()) {
    const tag = r.tag(path);
    if (tag.field !== 1) {
      ctx?.unknownFields.push({
        message: "ExtraValue",
        path,
        field: tag.field,
        wireType: tag.wireType,
        offset: tag.offset,
      });
      r.skip(tag, path);
      continue;
    }
    if (tag.wireType !== WireType.LengthDelimited) {
      r.fail(`field 1 has wire type ${tag.wireType}, expected ${WireType.LengthDelimited}`, path, tag.offset);
    }
    out.push(r.string(`${path}[${out.length}]`));
  }
  return out;
}

/** Decodes a well-known message by type name (unknown fields go to `ctx`, as for other messages). */
export function decodeWellKnown(type: string, r: WireReader, path: string, ctx?: DecodeContext): unknown {
  switch (type) {
    case "Time":
      return decodeTime(r, path, ctx);
    case "MicroTime":
      return decodeMicroTime(r, path, ctx);
    case "IntOrString":
      return decodeIntOrString(r, path, ctx);
    case "Quantity":
      return decodeQuantity(r, path, ctx);
    case "FieldsV1":
      return decodeFieldsV1(r, path, ctx);
    case "ExtraValue":
      return decodeExtraValue(r, path, ctx);
    default:
      return r.fail(`no decoder for well-known type ${type}`, path);
  }
}
