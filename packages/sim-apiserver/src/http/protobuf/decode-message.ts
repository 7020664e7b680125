// Schema-driven decoding of one protobuf message into the JSON object Go's `encoding/json` would write for the same
// Kubernetes struct: JSON names, zero scalars omitted unless the Go field is a pointer or lacks `omitempty`, bytes
// as base64, maps as objects, inlined embedded structs merged into their parent, well-known types in their JSON form.
import { type FieldSchema, type MessageSchema, messageSchema, WELL_KNOWN_TYPES } from "./schema.js";
import { decodeWellKnown } from "./well-known.js";
import { WireReader, WireType } from "./wire-reader.js";

/** A field the schema does not know, skipped while decoding (reported, never silently dropped). */
export interface UnknownField {
  /** Message the field appeared in (`ObjectMeta`, `Container`, …). */
  readonly message: string;
  /** JSON path of that message in the object (`metadata`, `spec.template.spec.containers[0]`; `""` = the object). */
  readonly path: string;
  readonly field: number;
  readonly wireType: number;
  /** Byte offset of the field's key in the request body. */
  readonly offset: number;
}

/** Decoding state shared across one body: the unknown fields found so far. */
export interface DecodeContext {
  readonly unknownFields: UnknownField[];
}

type JsonObject = Record<string, unknown>;

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function expectedWireType(f: FieldSchema): number {
  if (f.map || !f.scalar || f.type === "string" || f.type === "bytes") return WireType.LengthDelimited;
  return WireType.Varint;
}

function isZero(v: unknown): boolean {
  return v === "" || v === 0 || v === false;
}

function readScalar(r: WireReader, type: string, path: string): unknown {
  switch (type) {
    case "string":
      return r.string(path);
    case "bytes":
      return Buffer.from(r.bytesValue(path)).toString("base64");
    case "bool":
      return r.signedVarint(64, path) !== 0;
    case "int32":
      return r.signedVarint(32, path);
    case "int64":
      // Go keeps every 64-bit value; these objects are JSON values whose numbers are doubles, so a value beyond
      // ±(2^53 − 1) is refused (400 naming the field) rather than stored as a neighbouring one.
      return r.exactInt64(path);
    default:
      return r.fail(`unsupported scalar type ${type}`, path);
  }
}

function zeroOf(type: string): unknown {
  switch (type) {
    case "string":
    case "bytes":
      return "";
    case "bool":
      return false;
    case "int32":
    case "int64":
      return 0;
    case "Quantity":
      return "0";
    case "Time":
    case "FieldsV1":
    case "ExtraValue":
      return null;
    case "IntOrString":
      return 0;
    default:
      return {};
  }
}

/** A message-typed value (nested message or well-known type) read from a length-delimited field. */
function readMessageValue(r: WireReader, type: string, path: string, ctx: DecodeContext, into?: JsonObject): unknown {
  const sub = r.message(path);
  if (WELL_KNOWN_TYPES.has(type)) return decodeWellKnown(type, sub, path, ctx);
  const schema = messageSchema(type);
  if (schema === undefined) return r.fail(`no schema for message ${type}`, path);
  return decodeMessage(sub, schema, path, ctx, into);
}

/** A `map<string, T>` entry: key = 1, value = 2 (either may be absent: Go's zero value). */
function readMapEntry(r: WireReader, f: FieldSchema, path: string, ctx: DecodeContext): [string, unknown] {
  const entry = r.message(path);
  let key = "";
  let value: unknown = zeroOf(f.type);
  while (!entry.done()) {
    const tag = entry.tag(path);
    if (tag.field === 1 && tag.wireType === WireType.LengthDelimited) key = entry.string(path);
    else if (tag.field === 2) {
      const want =
        f.type === "bool" || f.type === "int32" || f.type === "int64" ? WireType.Varint : WireType.LengthDelimited;
      if (tag.wireType !== want) {
        entry.fail(`map value has wire type ${tag.wireType}, expected ${want}`, path, tag.offset);
      }
      value = f.scalar ? readScalar(entry, f.type, path) : readMessageValue(entry, f.type, path, ctx);
    } else entry.fail(`map entry has unexpected field ${tag.field} (wire type ${tag.wireType})`, path, tag.offset);
  }
  return [key, value];
}

/**
 * Decodes the fields of `schema` from `r` into `into` (a fresh object by default). Repeated occurrences of a
 * non-repeated message field merge, of a scalar the last one wins (protobuf's rules). Unknown fields are skipped
 * and appended to `ctx.unknownFields`. Throws ProtobufDecodeError on malformed input or a wire type that does not
 * match the schema.
 */
export function decodeMessage(
  r: WireReader,
  schema: MessageSchema,
  path: string,
  ctx: DecodeContext,
  into: JsonObject = {},
): JsonObject {
  const out = into;
  while (!r.done()) {
    const tag = r.tag(path);
    const f = schema.fields.get(tag.field);
    if (f === undefined) {
      ctx.unknownFields.push({
        message: schema.name,
        path,
        field: tag.field,
        wireType: tag.wireType,
        offset: tag.offset,
      });
      r.skip(tag, path);
      continue;
    }
    const fieldPath = f.inline ? path : join(path, f.json);
    const want = expectedWireType(f);
    const packed = f.repeated && f.scalar && want === WireType.Varint && tag.wireType === WireType.LengthDelimited;
    if (tag.wireType !== want && !packed) {
      r.fail(
        `wire type ${tag.wireType} for ${schema.name}.${f.json} (field ${f.number}), expected ${want}`,
        fieldPath,
        tag.offset,
      );
    }
    if (f.inline) {
      readMessageValue(r, f.type, fieldPath, ctx, out);
    } else if (f.map) {
      const [k, v] = readMapEntry(r, f, fieldPath, ctx);
      const m = (out[f.json] ?? {}) as JsonObject;
      m[k] = v;
      out[f.json] = m;
    } else if (f.repeated) {
      const list = (out[f.json] ?? []) as unknown[];
      out[f.json] = list;
      if (packed) {
        const items = r.message(fieldPath);
        while (!items.done()) list.push(readScalar(items, f.type, `${fieldPath}[${list.length}]`));
      } else {
        const itemPath = `${fieldPath}[${list.length}]`;
        list.push(f.scalar ? readScalar(r, f.type, itemPath) : readMessageValue(r, f.type, itemPath, ctx));
      }
    } else if (f.scalar) {
      const v = readScalar(r, f.type, fieldPath);
      if (isZero(v) && !f.keepZero) delete out[f.json];
      else out[f.json] = v;
    } else {
      const prev = out[f.json];
      const merge = typeof prev === "object" && prev !== null && !Array.isArray(prev) && !WELL_KNOWN_TYPES.has(f.type);
      out[f.json] = readMessageValue(r, f.type, fieldPath, ctx, merge ? (prev as JsonObject) : undefined);
    }
  }
  return out;
}

/** Decodes a whole message held in `bytes` (offsets in errors are counted from `base`). */
export function decodeMessageBytes(
  bytes: Uint8Array,
  base: number,
  schema: MessageSchema,
  ctx: DecodeContext,
): JsonObject {
  return decodeMessage(new WireReader(bytes, base), schema, "", ctx);
}
