/**
 * The response shape a client asked for through its `Accept` header (`negotiation.NegotiateOutputMediaType`):
 * plain JSON, a `meta.k8s.io` Table, or PartialObjectMetadata(List) (what metadata-only informers ask for).
 */
export type OutputMediaType =
  | { readonly kind: "json" }
  | { readonly kind: "table"; readonly apiVersion: string }
  | { readonly kind: "partial"; readonly apiVersion: string; readonly list: boolean };

interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

function parseAccept(header: string): MediaRange[] {
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

/**
 * Picks the first media range of `accept` the simulator can serve, in the client's order (q-values are ignored, as
 * kube-apiserver's negotiation mostly does for these clients). `as=Table;g=meta.k8s.io;v=v1|v1beta1` → Table;
 * `as=PartialObjectMetadata` (object, watch) or `as=PartialObjectMetadataList` (list) → metadata only; any JSON
 * range without `as` → JSON. `list` says whether the response is a list (for PartialObjectMetadataList).
 *
 * Differences from kube-apiserver: YAML, protobuf and CBOR are not served; a header naming only those (or nothing
 * recognisable) gets JSON instead of 406 Not Acceptable.
 */
export function negotiateOutput(accept: string | undefined, list: boolean): OutputMediaType {
  if (accept === undefined || accept.trim() === "") return { kind: "json" };
  for (const r of parseAccept(accept)) {
    if (!JSONISH.has(r.type)) continue;
    const as = r.params.as;
    if (as === undefined) return { kind: "json" };
    const g = r.params.g;
    const v = r.params.v;
    if (g !== "meta.k8s.io" || v === undefined || !META_VERSIONS.has(v)) continue;
    const apiVersion = `meta.k8s.io/${v}`;
    if (as === "Table") return { kind: "table", apiVersion };
    if (as === "PartialObjectMetadata" && !list) return { kind: "partial", apiVersion, list: false };
    if (as === "PartialObjectMetadataList" && list) return { kind: "partial", apiVersion, list: true };
  }
  return { kind: "json" };
}
