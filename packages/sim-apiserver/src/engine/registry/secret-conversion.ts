import { type KubeObject, newBadRequest } from "@informer-ts/apimachinery";

/**
 * Folds a v1 Secret's write-only `stringData` into `data`, in place, as kube-apiserver's v1 → internal conversion of a
 * Secret does on every write (create, update, patch, apply): each `stringData` value is stored base64-encoded (UTF-8)
 * under its key in `data`, replacing a `data` value of the same key, and `stringData` itself is dropped — it is never
 * stored nor read back. An empty or absent `stringData` changes nothing but is dropped too. A `stringData` that is not
 * an object of strings is a 400 BadRequest naming the key, as the decoder's error would be.
 */
export function convertSecretStringData(obj: KubeObject): void {
  if (!Object.hasOwn(obj, "stringData")) return;
  const stringData = (obj as { stringData?: unknown }).stringData;
  delete (obj as { stringData?: unknown }).stringData;
  if (stringData === null || stringData === undefined) return;
  if (typeof stringData !== "object" || Array.isArray(stringData)) {
    throw newBadRequest(
      `Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal ${jsonType(stringData)} into Go struct field Secret.stringData of type map[string]string`,
    );
  }
  const entries = Object.entries(stringData as Record<string, unknown>);
  if (entries.length === 0) return;
  const current = (obj as { data?: unknown }).data;
  const data: Record<string, unknown> =
    typeof current === "object" && current !== null && !Array.isArray(current) ? { ...current } : {};
  for (const [key, value] of entries) {
    if (typeof value !== "string") {
      throw newBadRequest(
        `Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal ${jsonType(value)} into Go struct field Secret.stringData of type string (key ${JSON.stringify(key)})`,
      );
    }
    data[key] = Buffer.from(value, "utf8").toString("base64");
  }
  (obj as { data?: unknown }).data = data;
}

/** The JSON type name Go's decoder uses in its messages. */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "object" : typeof v;
}
