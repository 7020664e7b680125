// A tiny protobuf writer for tests: hand-built bytes (field by field, with the numbers of generated.proto) and a
// schema-driven encoder of JSON objects (the inverse of decode-message.ts) for round-trip properties.
import { PROTOBUF_MAGIC } from "./envelope.js";
import { type FieldSchema, messageSchema } from "./schema.js";

export function varint(v: number | bigint): number[] {
  let x = BigInt.asUintN(64, BigInt(v));
  const out: number[] = [];
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x !== 0n) b |= 0x80;
    out.push(b);
  } while (x !== 0n);
  return out;
}

export const tag = (field: number, wireType: number): number[] => varint(field * 8 + wireType);

/** A varint field (bool, int32, int64). */
export const vfield = (field: number, v: number | bigint | boolean): number[] => [
  ...tag(field, 0),
  ...varint(typeof v === "boolean" ? (v ? 1 : 0) : v),
];

/** A length-delimited field holding raw bytes. */
export const bfield = (field: number, bytes: Iterable<number>): number[] => {
  const b = [...bytes];
  return [...tag(field, 2), ...varint(b.length), ...b];
};

/** A string field. */
export const sfield = (field: number, s: string): number[] => bfield(field, Buffer.from(s, "utf8"));

/** A nested message field (the parts are concatenated). */
export const mfield = (field: number, ...parts: number[][]): number[] => bfield(field, parts.flat());

/** A `map<string,string>` entry field. */
export const mapEntry = (field: number, key: string, value: string): number[] =>
  mfield(field, sfield(1, key), sfield(2, value));

/** The `k8s\0` envelope: runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function envelope(apiVersion: string, kind: string, raw: number[], extra: number[] = []): Buffer {
  return Buffer.from([
    ...PROTOBUF_MAGIC,
    ...mfield(1, sfield(1, apiVersion), sfield(2, kind)),
    ...bfield(2, raw),
    ...extra,
  ]);
}

/**
 * Encodes a JSON object as message `type` using the simulator's schema (as Go's marshaller would: every field
 * present in the object, maps in key order). Supports what the round-trip tests generate: scalars, nested
 * messages, repeated fields, maps, inlined structs, Quantity, IntOrString, Time, MicroTime and ExtraValue.
 */
export function encodeMessage(type: string, obj: Record<string, unknown>): number[] {
  const schema = messageSchema(type);
  if (schema === undefined) throw new Error(`no schema for ${type}`);
  const out: number[] = [];
  for (const f of [...schema.fields.values()].sort((a, b) => a.number - b.number)) {
    if (f.inline) {
      out.push(...mfield(f.number, encodeMessage(f.type, obj)));
      continue;
    }
    const v = obj[f.json];
    if (v === undefined) continue;
    if (f.map) {
      for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
        out.push(...mfield(f.number, sfield(1, k), encodeValue({ ...f, number: 2, map: false }, val)));
      }
    } else if (f.repeated) {
      for (const item of v as unknown[]) out.push(...encodeValue(f, item));
    } else out.push(...encodeValue(f, v));
  }
  return out;
}

function encodeValue(f: FieldSchema, v: unknown): number[] {
  switch (f.type) {
    case "string":
      return sfield(f.number, v as string);
    case "bytes":
      return bfield(f.number, Buffer.from(v as string, "base64"));
    case "bool":
    case "int32":
    case "int64":
      return vfield(f.number, v as number | boolean);
    case "Quantity":
      return mfield(f.number, sfield(1, v as string));
    case "IntOrString":
      return typeof v === "number"
        ? mfield(f.number, vfield(1, 0), vfield(2, v))
        : mfield(f.number, vfield(1, 1), sfield(3, v as string));
    case "Time":
      return v === null ? mfield(f.number) : mfield(f.number, vfield(1, Date.parse(v as string) / 1000));
    case "ExtraValue":
      return mfield(f.number, ...(v as string[]).map((item) => sfield(1, item)));
    case "MicroTime": {
      if (v === null) return mfield(f.number);
      const micros = /\.(\d{6})Z$/.exec(v as string)?.[1] ?? "000000";
      return mfield(f.number, vfield(1, Math.floor(Date.parse(v as string) / 1000)), vfield(2, Number(micros) * 1000));
    }
    default:
      return mfield(f.number, encodeMessage(f.type, v as Record<string, unknown>));
  }
}
