#!/usr/bin/env node
// Derives the protobuf schema table of the simulated apiserver (src/http/protobuf/schema-table.ts) from upstream
// Kubernetes definitions: field numbers, wire types, repeated/map and message types from the `generated.proto`
// files, and what protobuf alone cannot say (JSON name, Go pointer or `omitempty`, inlined embedded structs) from
// the matching `types.go`. Only the messages reachable from the root kinds are written.
//
// Usage: node packages/sim-apiserver/scripts/gen-protobuf-schema.mjs <dir> > packages/sim-apiserver/src/http/protobuf/schema-table.ts
// where <dir> holds, from kubernetes/api and kubernetes/apimachinery at one commit:
//   <group>_<version>_generated.proto and <group>_<version>_types.go for each of core/v1, apps/v1, batch/v1,
//   rbac/v1, policy/v1, scheduling/v1, networking/v1, coordination/v1, authorization/v1, authentication/v1,
//   certificates/v1, autoscaling/v1 of kubernetes/api (SOURCES below), and
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

/**
 * The object kinds the decoder serves: kubectl's typed creates, the bodies of its typed subresource writes (pods/eviction's
 * Eviction in `kubectl drain`, serviceaccounts/token's TokenRequest in `kubectl create token`, the reviews of
 * `kubectl auth can-i` and `kubectl auth whoami`, a CSR's approval), plus cheap neighbours.
 */
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
  { group: "", version: "v1", kind: "Binding" },
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
  { group: "policy", version: "v1", kind: "Eviction" },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview" },
  { group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview" },
  { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  { group: "authentication.k8s.io", version: "v1", kind: "TokenReview" },
  { group: "certificates.k8s.io", version: "v1", kind: "CertificateSigningRequest" },
  { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" },
  { group: "autoscaling", version: "v1", kind: "Scale" },
];
const ROOTS = ROOT_KINDS.map((r) => r.kind);
/**
 * Messages with their own JSON form, decoded by hand in well-known.ts (not expanded here). ExtraValue (authentication,
 * authorization and certificates each define one, all `repeated string items = 1`) is Go's `type ExtraValue []string`:
 * a JSON array.
 */
const WELL_KNOWN = new Set(["Time", "MicroTime", "IntOrString", "Quantity", "FieldsV1", "ExtraValue"]);

const SOURCES = [
  ["core_v1_generated.proto", "core_v1_types.go"],
  ["apps_v1_generated.proto", "apps_v1_types.go"],
  ["batch_v1_generated.proto", "batch_v1_types.go"],
  ["rbac_v1_generated.proto", "rbac_v1_types.go"],
  ["policy_v1_generated.proto", "policy_v1_types.go"],
  ["scheduling_v1_generated.proto", "scheduling_v1_types.go"],
  ["networking_v1_generated.proto", "networking_v1_types.go"],
  ["coordination_v1_generated.proto", "coordination_v1_types.go"],
  ["authorization_v1_generated.proto", "authorization_v1_types.go"],
  ["authentication_v1_generated.proto", "authentication_v1_types.go"],
  ["certificates_v1_generated.proto", "certificates_v1_types.go"],
  ["autoscaling_v1_generated.proto", "autoscaling_v1_types.go"],
  ["pkg_apis_meta_v1_generated.proto", "meta_v1_types.go"],
];

const shortName = (t) => t.slice(t.lastIndexOf(".") + 1);

/**
 * The file's package and its messages: message name → Map(number → {name, type, label: "optional"|"repeated"|"map"}),
 * `type` a scalar or the message's package-qualified name (`k8s.io.api.core.v1.PodSpec`).
 */
function parseProto(text) {
  const out = new Map();
  const noComments = text.replace(/\/\/.*$/gm, "");
  const pkg = /^package ([\w.]+);$/m.exec(noComments)?.[1];
  if (pkg === undefined) throw new Error("proto file without a package line");
  const qualify = (t) => (SCALARS.has(t) ? t : t.startsWith(".") ? t.slice(1) : t.includes(".") ? t : `${pkg}.${t}`);
  for (const m of noComments.matchAll(/^message (\w+) \{([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    for (const line of m[2].split("\n")) {
      const s = line.trim();
      if (s === "") continue;
      let f = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(s);
      if (f !== null) {
        fields.set(Number(f[4]), { name: f[3], type: qualify(f[2]), label: f[1] });
        continue;
      }
      f = /^map<string, ([\w.]+)> (\w+) = (\d+);$/.exec(s);
      if (f !== null) {
        fields.set(Number(f[3]), { name: f[2], type: qualify(f[1]), label: "map" });
        continue;
      }
      throw new Error(`unparsed proto line in ${m[1]}: ${s}`);
    }
    if (out.has(m[1])) throw new Error(`duplicate message ${m[1]}`);
    out.set(m[1], fields);
  }
  return { pkg, messages: out };
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

const SCALARS = new Set(["string", "bool", "int32", "int64", "bytes", "double", "float", "uint32", "uint64"]);
/** Package-qualified message name → its fields (proto) and its Go struct's tags. */
const protos = new Map();
const gos = new Map();
for (const [p, g] of SOURCES) {
  const { pkg, messages } = parseProto(readFileSync(join(dir, p), "utf8"));
  for (const [k, v] of messages) protos.set(`${pkg}.${k}`, v);
  for (const [k, v] of parseGo(readFileSync(join(dir, g), "utf8"))) gos.set(`${pkg}.${k}`, v);
}

/** The proto package of an API group version (`k8s.io.api.<first label of the group, core for "">.<version>`). */
const packageOf = (group, version) => `k8s.io.api.${group === "" ? "core" : group.split(".")[0]}.${version}`;
const reached = [];
const seen = new Set();
const queue = ROOT_KINDS.map((r) => `${packageOf(r.group, r.version)}.${r.kind}`);
while (queue.length > 0) {
  const name = queue.shift();
  if (seen.has(name) || WELL_KNOWN.has(shortName(name))) continue;
  seen.add(name);
  const fields = protos.get(name);
  if (fields === undefined) throw new Error(`message ${name} not found`);
  reached.push(name);
  for (const f of fields.values()) if (!SCALARS.has(f.type)) queue.push(f.type);
}

// The table names messages by short name: two reached messages of one name in different packages must agree.
const entries = new Map();
for (const name of reached) {
  const go = gos.get(name);
  if (go === undefined) throw new Error(`Go struct ${name} not found`);
  const parts = [];
  for (const [num, f] of [...protos.get(name)].sort((a, b) => a[0] - b[0])) {
    const g = go.get(num);
    if (g === undefined) throw new Error(`${name}.${f.name} (${num}) has no Go field`);
    const t = shortName(f.type);
    const type = f.label === "map" ? `map[${t}]` : f.label === "repeated" ? `[]${t}` : t;
    const json = g.inline ? "^" : g.json;
    const flag = !g.inline && g.keepZero && f.label === "optional" && SCALARS.has(f.type) ? "!" : "";
    parts.push(`${num} ${json} ${type}${flag}`);
  }
  const spec = parts.join("; ");
  const short = shortName(name);
  const prior = entries.get(short);
  if (prior !== undefined && prior.spec !== spec) {
    throw new Error(`message ${short} is reached in two packages with different fields (${prior.name}, ${name})`);
  }
  entries.set(short, { name, spec });
}
const lines = [...entries.keys()].sort().map((k) => `  ${k}: "${entries.get(k).spec}",`);

process.stdout.write(`// Derived by packages/sim-apiserver/scripts/gen-protobuf-schema.mjs from kubernetes/api and
// kubernetes/apimachinery (${commit}):
// generated.proto (field numbers, types, repeated/map) and types.go (JSON names,
// pointer or non-omitempty scalars, inlined embedded structs). Regenerate instead of editing by hand.
//
// One entry per message reachable from ${ROOTS.join(", ")}. Each field is \`<number> <json name> <type>\`:
// \`[]T\` repeated, \`map[T]\` a map with string keys, \`^\` as the name an inlined embedded struct (its fields join
// the parent's JSON object), a trailing \`!\` a scalar kept in JSON even when zero (a Go pointer or a field without
// \`omitempty\`). Time, IntOrString, Quantity, FieldsV1 and ExtraValue (well-known.ts) have their own JSON form.

/** Message name → field list, in the notation above (parsed by schema.ts). */
export const SCHEMA_TABLE: Readonly<Record<string, string>> = {
${lines.join("\n")}
};

/** The object kinds with a schema (each kind's message has the kind's name). */
export const SCHEMA_ROOTS: readonly { readonly group: string; readonly version: string; readonly kind: string }[] = [
${ROOT_KINDS.map((r) => `  { group: "${r.group}", version: "${r.version}", kind: "${r.kind}" },`).join("\n")}
];
`);
