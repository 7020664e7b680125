import { StatusError } from "@informer-ts/apimachinery";

/**
 * The response shape a client asked for through its `Accept` header (`negotiation.NegotiateOutputMediaType`):
 * plain JSON, a `meta.k8s.io` Table, or PartialObjectMetadata(List) (what metadata-only informers ask for).
 */
export type OutputMediaType =
  | { readonly kind: "json" }
  | { readonly kind: "table"; readonly apiVersion: string }
  /** `list`: the client asked for `PartialObjectMetadataList` (else `PartialObjectMetadata`). */
  | { readonly kind: "partial"; readonly apiVersion: string; readonly list: boolean };

/** One media range of an `Accept` header: its lower-cased type and its parameters. */
export interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

/** The media ranges of an `Accept` header, in the client's order (parameter names lower-cased). */
export function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [type, ...rest] = part.split(";");
    const t = (type ?? "").trim().toLowerCase();
    if (t === "") continue;
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf("=");
      if (eq < 0) continue;
      params[p.slice(0, eq).trim().toLowerCase()] = p
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, "");
    }
    out.push({ type: t, params });
  }
  return out;
}

const JSONISH = new Set(["application/json", "application/*", "*/*"]);
const META_VERSIONS = new Set(["v1", "v1beta1"]);

/** The media types kube-apiserver lists in a 406 (built-in resources; custom resources have no protobuf). */
export function supportedMediaTypes(custom: boolean): readonly string[] {
  return custom
    ? ["application/json", "application/yaml"]
    : ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
}

/** A 406 NotAcceptable Status error with `message`. */
export function newNotAcceptable(message: string): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "NotAcceptable",
    code: 406,
  });
}

/**
 * Picks the first media range of `accept` the simulator can serve, in the client's order (q-values are ignored, as
 * kube-apiserver's negotiation mostly does for these clients). `as=Table;g=meta.k8s.io;v=v1|v1beta1` → Table;
 * `as=PartialObjectMetadata` or `as=PartialObjectMetadataList` (g=meta.k8s.io, v1 or v1beta1) → metadata only, for
 * list and single-object endpoints alike (as upstream's `AllowsMediaTypeTransform`: a list asked for as
 * `PartialObjectMetadata` is a 406 later, when the response is transformed); any JSON range without `as` → JSON.
 * A JSON range with any other `as`/`g`/`v` is not acceptable: when every range of the header is such a one, the
 * answer is 406 NotAcceptable `only the following media types are accepted: …` (`custom`: the resource is a custom
 * resource, which lists no protobuf). `tables: false` is a resource without a table convertor (the review kinds):
 * a Table range is then one that cannot be served, so a header asking only for a Table is a 406.
 *
 * Differences from kube-apiserver: YAML, protobuf and CBOR are not served; a header naming only those (or nothing
 * recognisable) gets JSON instead of that format or a 406.
 */
export function negotiateOutput(accept: string | undefined, custom = false, tables = true): OutputMediaType {
  if (accept === undefined || accept.trim() === "") return { kind: "json" };
  let rejectedTransform = false;
  let otherType = false;
  for (const r of parseAccept(accept)) {
    if (!JSONISH.has(r.type)) {
      otherType = true;
      continue;
    }
    const as = r.params.as;
    if (as === undefined) return { kind: "json" };
    const g = r.params.g;
    const v = r.params.v;
    if (g === "meta.k8s.io" && v !== undefined && META_VERSIONS.has(v)) {
      const apiVersion = `meta.k8s.io/${v}`;
      if (as === "Table" && tables) return { kind: "table", apiVersion };
      if (as === "PartialObjectMetadata") return { kind: "partial", apiVersion, list: false };
      if (as === "PartialObjectMetadataList") return { kind: "partial", apiVersion, list: true };
    }
    rejectedTransform = true;
  }
  if (rejectedTransform && !otherType) {
    throw newNotAcceptable(`only the following media types are accepted: ${supportedMediaTypes(custom).join(", ")}`);
  }
  return { kind: "json" };
}
