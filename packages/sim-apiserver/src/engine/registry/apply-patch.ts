import { type KubeObject, newBadRequest } from "@informer-ts/apimachinery";
import { narrowInt64, parseYamlDocumentsInt64 } from "../int64-yaml.js";

/** go-yaml's wording for the parse errors an apply body most often has. */
const GO_YAML_MESSAGES: Readonly<Record<string, string>> = {
  BLOCK_AS_IMPLICIT_KEY: "mapping values are not allowed in this context",
  MULTILINE_IMPLICIT_KEY: "mapping values are not allowed in this context",
  TAB_AS_INDENT: "found character that cannot start any token",
  BAD_INDENT: "did not find expected key",
  UNEXPECTED_TOKEN: "did not find expected node content",
  MISSING_CHAR: "did not find expected node content",
  DUPLICATE_KEY: "already set in map",
};

function goTypeOf(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return "object";
}

/**
 * Decodes a server-side apply body (`application/apply-patch+yaml`: YAML or JSON, the first document) into the
 * applied configuration, as the apply patcher's `yaml.Unmarshal` into a map does. Throws 400 BadRequest
 * `error decoding YAML: error converting YAML to JSON: yaml: line N: …` for YAML that does not parse, and
 * `… json: cannot unmarshal array into Go value of type map[string]interface {}` for a document that is not a map.
 * An empty body decodes to `{}` (the apply then fails its type check).
 *
 * Differences from kube-apiserver: the YAML parser is `yaml` (eemeli), not go-yaml; the common errors are reported
 * with go-yaml's wording and line, others with this parser's first line of text.
 */
export function decodeApplyConfiguration(body: string): KubeObject {
  const docs = parseYamlDocumentsInt64(body);
  const first = Array.isArray(docs) ? docs[0] : undefined;
  if (first !== undefined && first.errors.length > 0) {
    const e = first.errors[0]!;
    const line = e.linePos?.[0]?.line ?? 1;
    const text = GO_YAML_MESSAGES[e.code] ?? e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw newBadRequest(`error decoding YAML: error converting YAML to JSON: yaml: line ${line}: ${text}`);
  }
  const value: unknown = first === undefined ? null : narrowInt64(first.toJS({ maxAliasCount: 100 }));
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw newBadRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`,
    );
  }
  return value as KubeObject;
}
