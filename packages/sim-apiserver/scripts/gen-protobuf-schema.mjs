#!/usr/bin/env node
// Derives the protobuf schema table of the simulated apiserver (src/http/protobuf/schema-table.ts) from upstream
// Kubernetes definitions: field numbers, wire types, repeated/map and message types from the `generated.proto`
// files, and what protobuf alone cannot say (JSON name, Go pointer or `omitempty`, inlined embedded structs) from
// the matching `types.go`. Only the messages reachable from the root kinds are written.
//
// Usage: node packages/sim-apiserver/scripts/gen-protobuf-schema.mjs <dir> > packages/sim-apiserver/src/http/protobuf/schema-table.ts
// where <dir> holds, from kubernetes/api and kubernetes/apimachinery at one commit:
//   <group>_<version>_generated.proto and <group>_<version>_types.go for each of core/v1, apps/v1, batch/v1,
//   rbac/v1, policy/v1, scheduling/v1, networking/v1, coordination/v1 of kubernetes/api (SOURCES below), and
//   pkg_apis_meta_v1_generated.proto, meta_v1_types.go from apimachinery's pkg/apis/meta/v1
// e.g. `git -C <kubernetes/api clone> show v0.34.10:core/v1/generated.proto > <dir>/core_v1_generated.proto`; an
// optional second argument names the source in the header. Then `pnpm exec biome format --write` the output.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write("usage: gen-protobuf-schema.mjs <dir with generated.proto and types.go files>\n");
  process.exit(2);
}
const commit = process.argv[3] ?? "unknown";

/** The object kinds the decoder serves (kubectl's typed creates, plus cheap neighbours). */
const ROOT_KINDS = [
  { group: "", version: "v1", kind: "Namespace" },
  { group: "", version: "v1", kind: "ConfigMap" },
  { group: "", version: "v1", kind: "Secret" },
  { group: "", version: "v1", kind: "Service" },
  { group: "", version: "v1", kind: "ServiceAccount" },
  { group: "", version: "v1", kind: "Pod" },
  { group: "", version: "v1", kind: "ResourceQuota" },
  { group: "", version: "v1", kind: "Event" },
  { group: "", version: "v1", kind: "Node" },
  { group: "", version: "v1", kind: "PersistentVolumeClaim" },
  { group: "", version: "v1", kind: "Endpoints" },
  { group: "apps", version: "v1", kind: "Deployment" },
  { group: "apps", version: "v1", kind: "StatefulSet" },
  { group: "apps", version: "v1", kind: "ReplicaSet" },
  { group: "apps", version: "v1", kind: "DaemonSet" },
  { group: "batch", version: "v1", kind: "Job" },
  { group: "batch", version: "v1", kind: "CronJob" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding" },
  { group: "policy", version: "v1", kind: "PodDisruptionBudget" },
  { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass" },
  { group: "networking.k8s.io", version: "v1", kind: "Ingress" },
  { group: "coordination.k8s.io", version: "v1", kind: "Lease" },
];
const ROOTS = ROOT_KINDS.map((r) => r.kind);
/** Messages with their own JSON form, decoded by hand in well-known.ts (not expanded here). */
const WELL_KNOWN = new Set(["Time", "MicroTime", "IntOrString", "Quantity", "FieldsV1"]);

const SOURCES = [
  ["core_v1_generated.proto", "core_v1_types.go"],
  ["apps_v1_generated.proto", "apps_v1_types.go"],
  ["batch_v1_generated.proto", "batch_v1_types.go"],
  ["rbac_v1_generated.proto", "rbac_v1_types.go"],
  ["policy_v1_generated.proto", "policy_v1_types.go"],
  ["scheduling_v1_generated.proto", "scheduling_v1_types.go"],
  ["networking_v1_generated.proto", "networking_v1_types.go"],
  ["coordination_v1_generated.proto", "coordination_v1_types.go"],
  ["pkg_apis_meta_v1_generated.proto", "meta_v1_types.go"],
];

const shortName = (t) => t.slice(t.lastIndexOf(".") + 1);

/** message name → Map(number → {name, type, label: "optional"|"repeated"|"map", valueType}) */
function parseProto(text) {
  const out = new Map();
  const noComments = text.replace(/\/\/.*$/gm, "");
  for (const m of noComments.matchAll(/^message (\w+) \{([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    for (const line of m[2].split("\n")) {
      const s = line.trim();
      if (s === "") continue;
      let f = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(s);
      if (f !== null) {
        fields.set(Number(f[4]), { name: f[3], type: shortName(f[2]), label: f[1] });
        continue;
      }
      f = /^map<string, ([\w.]+)> (\w+) = (\d+);$/.exec(s);
      if (f !== null) {
        fields.set(Number(f[3]), { name: f[2], type: shortName(f[1]), label: "map" });
        continue;
      }
      throw new Error(`unparsed proto line in ${m[1]}: ${s}`);
    }
    if (out.has(m[1])) throw new Error(`duplicate message ${m[1]}`);
    out.set(m[1], fields);
  }
  return out;
}

/** struct name → Map(number → {json, keepZero, inline}) from the Go struct tags. */
function parseGo(text) {
  const out = new Map();
  for (const m of text.matchAll(/^type (\w+) struct \{([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    for (const line of m[2].split("\n")) {
      const t = /^\s*(?:(\w+)\s+)?(\*?[\w.[\]*]+)\s+`([^`]*)`/.exec(line);
      if (t === null) continue;
      const proto = /protobuf:"(\w+),(\d+)/.exec(t[3]);
      if (proto === null) continue;
      const json = /json:"([^"]*)"/.exec(t[3]);
      const [jsonName, ...opts] = (json?.[1] ?? "").split(",");
      const embedded = t[1] === undefined;
      const pointer = t[2].startsWith("*");
      fields.set(Number(proto[2]), {
        json: jsonName,
        inline: embedded && jsonName === "",
        keepZero: pointer || !opts.includes("omitempty"),
      });
    }
    out.set(m[1], fields);
  }
  return out;
}

const protos = new Map();
const gos = new Map();
for (const [p, g] of SOURCES) {
  for (const [k, v] of parseProto(readFileSync(join(dir, p), "utf8"))) {
    // A name defined in two packages (`List`) is unusable by short name; fail only if it is reached.
    protos.set(k, protos.has(k) ? null : v);
  }
  for (const [k, v] of parseGo(readFileSync(join(dir, g), "utf8"))) gos.set(k, gos.has(k) ? null : v);
}

const SCALARS = new Set(["string", "bool", "int32", "int64", "bytes", "double", "float", "uint32", "uint64"]);
const reached = [];
const seen = new Set();
const queue = [...ROOTS];
while (queue.length > 0) {
  const name = queue.shift();
  if (seen.has(name) || WELL_KNOWN.has(name)) continue;
  seen.add(name);
  const fields = protos.get(name);
  if (fields === undefined) throw new Error(`message ${name} not found`);
  if (fields === null) throw new Error(`message ${name} is defined in two packages`);
  reached.push(name);
  for (const f of fields.values()) if (!SCALARS.has(f.type)) queue.push(f.type);
}

const lines = [];
for (const name of reached.sort()) {
  const go = gos.get(name);
  if (go === undefined) throw new Error(`Go struct ${name} not found`);
  const parts = [];
  for (const [num, f] of [...protos.get(name)].sort((a, b) => a[0] - b[0])) {
    const g = go.get(num);
    if (g === undefined) throw new Error(`${name}.${f.name} (${num}) has no Go field`);
    const type = f.label === "map" ? `map[${f.type}]` : f.label === "repeated" ? `[]${f.type}` : f.type;
    const json = g.inline ? "^" : g.json;
    const flag = !g.inline && g.keepZero && f.label === "optional" && SCALARS.has(f.type) ? "!" : "";
    parts.push(`${num} ${json} ${type}${flag}`);
  }
  lines.push(`  ${name}: "${parts.join("; ")}",`);
}

process.stdout.write(`// Derived by packages/sim-apiserver/scripts/gen-protobuf-schema.mjs from kubernetes/api and
// kubernetes/apimachinery (${commit}):
// generated.proto (field numbers, types, repeated/map) and types.go (JSON names,
// pointer or non-omitempty scalars, inlined embedded structs). Regenerate instead of editing by hand.
//
// One entry per message reachable from ${ROOTS.join(", ")}. Each field is \`<number> <json name> <type>\`:
// \`[]T\` repeated, \`map[T]\` a map with string keys, \`^\` as the name an inlined embedded struct (its fields join
// the parent's JSON object), a trailing \`!\` a scalar kept in JSON even when zero (a Go pointer or a field without
// \`omitempty\`). Time, IntOrString, Quantity and FieldsV1 (well-known.ts) have their own JSON form.

/** Message name → field list, in the notation above (parsed by schema.ts). */
export const SCHEMA_TABLE: Readonly<Record<string, string>> = {
${lines.join("\n")}
};

/** The object kinds with a schema (each kind's message has the kind's name). */
export const SCHEMA_ROOTS: readonly { readonly group: string; readonly version: string; readonly kind: string }[] = [
${ROOT_KINDS.map((r) => `  { group: "${r.group}", version: "${r.version}", kind: "${r.kind}" },`).join("\n")}
];
`);
