// Helpers shared by the benchmarks: sizes from the environment, units, the ConfigMaps they create, and what their
// child processes share (heap after GC, the client-node setup, profiling flags).
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { forceGc, heapUsed } from "./report.js";

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

/** `namespace/name` (or `name`) of an object: the key the raw baselines cache objects under. */
export function keyOf(o: KubeObject): string {
  const m = o.metadata;
  return m?.namespace ? `${m.namespace}/${m.name}` : (m?.name ?? "");
}

/**
 * Heap used after GCs separated by event-loop turns: undici releases response bodies through a
 * FinalizationRegistry, whose callbacks only run after a GC, in a later turn.
 */
export async function settledHeapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    forceGc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return heapUsed();
}

/**
 * `@kubernetes/client-node` (imported lazily: only its own children load it) with a `KubeConfig` for the simulated
 * apiserver at `url` (no credentials) and a `CoreV1Api` on it: the setup every client-node variant shares.
 */
export async function clientNodeFor(url: string): Promise<{
  readonly k8s: typeof import("@kubernetes/client-node");
  readonly kc: import("@kubernetes/client-node").KubeConfig;
  readonly api: import("@kubernetes/client-node").CoreV1Api;
}> {
  const k8s = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "sim", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "sim", cluster: "sim", user: "bench" }],
    currentContext: "sim",
  });
  return { k8s, kc, api: kc.makeApiClient(k8s.CoreV1Api) };
}

/**
 * Node flags of a benchmark child: `--expose-gc`, plus `--cpu-prof` into `profDir` (when set) with a file named
 * after `label`, for profiling one variant.
 */
export function childNodeArgs(profDir: string | undefined, label: string): string[] {
  const args = ["--expose-gc"];
  if (profDir !== undefined && profDir !== "") {
    args.push("--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`);
  }
  return args;
}

/**
 * The raw NDJSON floor of a watch: reads `body` (a watch response), splits it on newlines, `JSON.parse`s each line and
 * keeps ADDED/MODIFIED objects in `cache` by {@link keyOf} (DELETED removes), until `events` non-bookmark events were
 * read or the body ends. Returns the number read; destroys the body.
 */
export async function readWatchInto(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  cache: Map<string, KubeObject>,
  events: number,
): Promise<number> {
  let read = 0;
  let carry: Buffer | undefined;
  loop: for await (const raw of body) {
    const chunk = carry === undefined ? raw : Buffer.concat([carry, raw]);
    carry = undefined;
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      const ev = JSON.parse(chunk.toString("utf8", from, nl)) as WatchEvent<KubeObject>;
      from = nl + 1;
      if (ev.type === "ADDED" || ev.type === "MODIFIED") cache.set(keyOf(ev.object), ev.object);
      else if (ev.type === "DELETED") cache.delete(keyOf(ev.object));
      if (ev.type !== "BOOKMARK" && ++read === events) break loop;
    }
    if (from < chunk.length) carry = chunk.subarray(from);
  }
  body.destroy();
  return read;
}
