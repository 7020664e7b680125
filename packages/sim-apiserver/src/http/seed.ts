import { readFileSync } from "node:fs";
import type { KubeObject } from "@informer-ts/apimachinery";
import { parseAllDocuments } from "yaml";

function flatten(value: unknown, out: KubeObject[], where: string): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      flatten(v, out, `${where}[${i}]`);
    });
    return;
  }
  if (typeof value !== "object")
    throw new Error(`${where}: expected an object, a List or an array, got ${typeof value}`);
  const obj = value as KubeObject;
  if (Array.isArray(obj.items) && (obj.kind === undefined || String(obj.kind).endsWith("List"))) {
    // A List (`kind: List`) or a typed list (`ConfigMapList`): items of typed lists may lack kind/apiVersion.
    const itemKind = typeof obj.kind === "string" && obj.kind !== "List" ? obj.kind.slice(0, -4) : undefined;
    (obj.items as unknown[]).forEach((item, i) => {
      const it = item as KubeObject;
      if (itemKind !== undefined && typeof it === "object" && it !== null) {
        if (it.kind === undefined) it.kind = itemKind;
        if (it.apiVersion === undefined && obj.apiVersion !== undefined) it.apiVersion = obj.apiVersion;
      }
      flatten(it, out, `${where}.items[${i}]`);
    });
    return;
  }
  if (typeof obj.kind !== "string" || typeof obj.apiVersion !== "string") {
    throw new Error(`${where}: object without kind/apiVersion`);
  }
  out.push(obj);
}

/**
 * Parses seed objects from text: JSON (an object, a `List`/typed list, or an array) or YAML (one or more documents,
 * each of those shapes). Every object must have `kind` and `apiVersion` (items of a typed list inherit them).
 * Throws an Error naming the offending document on bad input.
 */
export function parseSeed(text: string, source = "seed"): KubeObject[] {
  const out: KubeObject[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${source}: invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    flatten(value, out, source);
    return out;
  }
  const docs = parseAllDocuments(text);
  docs.forEach((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${source}: YAML document ${i + 1}: ${doc.errors[0]!.message}`);
    flatten(doc.toJS(), out, `${source}#${i + 1}`);
  });
  return out;
}

/**
 * {@link parseSeed} on the contents of a file. A file that cannot be read throws `cannot read <path>: <reason>`
 * (e.g. `ENOENT: no such file or directory`); bad contents throw as {@link parseSeed} does.
 */
export function loadSeedFile(path: string): KubeObject[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    // Node's message ends with the syscall and the path (", open '/x.yaml'"): the path is named once, up front.
    const reason = err instanceof Error ? err.message.replace(/, \w+ '[^']*'$/, "") : String(err);
    throw new Error(`cannot read ${path}: ${reason}`);
  }
  return parseSeed(text, path);
}
