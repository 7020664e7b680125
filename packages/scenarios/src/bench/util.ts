// Helpers shared by the benchmarks: sizes from the environment, units, and the ConfigMaps they create.
import type { KubeObject } from "@informer-ts/apimachinery";

export const KiB = 1024;
export const MiB = 1024 * 1024;

/**
 * An integer size from the environment variable `name`, or `fallback` when it is unset or empty. A value that is not
 * an integer ≥ `min` is an error naming the variable (a typo must not silently run the full-size benchmark).
 */
export function envInt(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

/**
 * A small ConfigMap (about 300 bytes of JSON) without server-set metadata, as a client would create it: labels
 * `app` (50 values) and `tier`, two data keys. Used where the object count matters more than its size.
 */
export function smallConfigMap(name: string, namespace: string, i: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { app: `app-${i % 50}`, tier: i % 2 === 0 ? "frontend" : "backend" } },
    data: { "settings.yaml": `id: ${i}\n${"x".repeat(200)}`, "extra.txt": String(i).padStart(64, "0") },
  };
}

/**
 * ConfigMap `config-<i>` in `namespace-<i % 100>` of about 1 KiB of JSON, as a server would hold it (serialized,
 * with a uid and resourceVersion `rv`), with per-object filler so that strings are not shared.
 */
export function configMapJson(i: number, rv: number): string {
  const filler = (i * 2654435761).toString(36).padEnd(8, "q");
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `config-${i}`,
      namespace: `namespace-${i % 100}`,
      uid: `0b1c2d3e-4f50-6172-8394-${String(i).padStart(12, "0")}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 50}`, tier: i % 2 === 0 ? "frontend" : "backend" },
      annotations: { "example.com/owner": `team-${i % 17}` },
    },
    data: { "settings.yaml": `id: ${i}\n` + `${filler}-`.repeat(90), "extra.txt": `${i}:` + filler.repeat(12) },
  });
}
