// The protobuf schemas of the kinds the simulator decodes: the compact table of schema-table.ts parsed once into
// per-message field maps.
import { SCHEMA_ROOTS, SCHEMA_TABLE } from "./schema-table.js";

/** Scalar protobuf types used by the Kubernetes API (the table's vocabulary). */
export type ScalarType = "string" | "bool" | "int32" | "int64" | "bytes";

/** One field of a message schema. */
export interface FieldSchema {
  readonly number: number;
  /** JSON name; for an inlined embedded struct, the message name (see `inline`). */
  readonly json: string;
  /** A scalar type or a message name (well-known types included). */
  readonly type: string;
  readonly scalar: boolean;
  readonly repeated: boolean;
  /** A `map<string, type>`: entries are messages with key = 1, value = 2. */
  readonly map: boolean;
  /** Go embeds the struct without a JSON name: its fields are written into the parent object. */
  readonly inline: boolean;
  /** A scalar written even when zero (a Go pointer, or no `omitempty`). */
  readonly keepZero: boolean;
}

/** A message: its name and fields by number. */
export interface MessageSchema {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldSchema>;
}

const SCALARS: ReadonlySet<string> = new Set(["string", "bool", "int32", "int64", "bytes"]);

/** Messages with their own JSON form (well-known.ts). */
export const WELL_KNOWN_TYPES: ReadonlySet<string> = new Set([
  "Time",
  "MicroTime",
  "IntOrString",
  "Quantity",
  "FieldsV1",
  "ExtraValue",
]);

function parseField(message: string, spec: string): FieldSchema {
  const m = /^(\d+) (\S+) (\[\])?(map\[)?(\w+)\]?(!)?$/.exec(spec.trim());
  if (m === null) throw new Error(`schema table: cannot parse field "${spec}" of ${message}`);
  const type = m[5]!;
  const inline = m[2] === "^";
  return {
    number: Number(m[1]),
    json: inline ? type : m[2]!,
    type,
    scalar: SCALARS.has(type),
    repeated: m[3] !== undefined,
    map: m[4] !== undefined,
    inline,
    keepZero: m[6] !== undefined,
  };
}

function build(table: Readonly<Record<string, string>>): ReadonlyMap<string, MessageSchema> {
  const out = new Map<string, MessageSchema>();
  for (const [name, spec] of Object.entries(table)) {
    const fields = new Map<number, FieldSchema>();
    for (const part of spec.split(";")) {
      const f = parseField(name, part);
      fields.set(f.number, f);
    }
    out.set(name, { name, fields });
  }
  for (const m of out.values()) {
    for (const f of m.fields.values()) {
      if (!f.scalar && !WELL_KNOWN_TYPES.has(f.type) && !out.has(f.type)) {
        throw new Error(`schema table: ${m.name}.${f.json} refers to unknown message ${f.type}`);
      }
    }
  }
  return out;
}

let messages: ReadonlyMap<string, MessageSchema> | undefined;

/** The message schema of `name` (kind or nested message), or undefined when the simulator has none. */
export function messageSchema(name: string): MessageSchema | undefined {
  messages ??= build(SCHEMA_TABLE);
  return messages.get(name);
}

/**
 * The message schema of an object kind whose protobuf bodies the simulator decodes (the roots of schema-table.ts:
 * every kind `kubectl create` sends typed, plus a few neighbours), or undefined for any other kind
 * (custom resources included: kube-apiserver serves them no protobuf either).
 */
export function kindSchema(group: string, version: string, kind: string): MessageSchema | undefined {
  const root = SCHEMA_ROOTS.some((r) => r.group === group && r.version === version && r.kind === kind);
  return root ? messageSchema(kind) : undefined;
}
