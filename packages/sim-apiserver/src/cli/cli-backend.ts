import { readFile } from "node:fs/promises";
import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { PromMetrics } from "@informer-ts/instrumentation";
import { BOOKMARK_MODES, type BookmarkMode, type WatcherSelector } from "../engine/cacher/index.js";
import { type LatencyRule, parseHttpFaultRule } from "../engine/filters/index.js";
import { signingKeysFromPem } from "../engine/serviceaccount/token-issuer.js";
import { SimApiServer } from "../engine/sim-apiserver.js";
import { createAdminHandler } from "../http/admin.js";
import type { ApiBackend } from "../http/backend.js";
import { groupVersionString } from "../http/discovery.js";
import { EngineBackend } from "../http/engine-backend.js";
import type { AdminHandler, MetricsRenderer } from "../http/server.js";
import type { ApiserverFlags } from "./cli-flags.js";

/** What `main.ts` runs: a backend, how to seed it, the admin API, metrics, and how to stop it. */
export interface CliBackend {
  readonly backend: ApiBackend;
  readonly engine: SimApiServer;
  /**
   * Creates the objects in order, straight in storage as if they existed before the server started (no request
   * faults, latency, accounting or audit apply); a `CustomResourceDefinition` registers its custom resource (served
   * from then on). Throws an Error naming the first object that could not be created.
   */
  seed(objects: readonly KubeObject[]): Promise<void>;
  readonly admin: AdminHandler;
  /** Renders `/metrics` (the engine's accounting and watch-cache metrics). */
  readonly metrics: MetricsRenderer & MetricsProvider;
  stop(): Promise<void>;
}

function record(body: unknown, what: string): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new Error(`${what}: expected a JSON object`);
  return body as Record<string, unknown>;
}

/** The fault types handled by the engine (everything else given to `--fault` is an HTTP fault rule). */
export const ENGINE_FAULT_TYPES: readonly string[] = [
  "latency",
  "bookmarks",
  "drop-watches",
  "stall-watchers",
  "resume-watchers",
  "compact",
  "reinit",
];

function watcherSelector(b: Record<string, unknown>, what: string): WatcherSelector {
  if (b.resource !== undefined && typeof b.resource !== "string") throw new Error(`${what}: resource must be a string`);
  if (b.userAgent !== undefined && typeof b.userAgent !== "string")
    throw new Error(`${what}: userAgent must be a string`);
  if (b.ids !== undefined && !(Array.isArray(b.ids) && b.ids.every((x) => Number.isInteger(x) && x >= 0))) {
    throw new Error(`${what}: ids must be an array of watcher ids (integers)`);
  }
  return {
    ...(b.resource !== undefined && { resource: b.resource as string }),
    ...(b.userAgent !== undefined && { userAgent: b.userAgent as string }),
    ...(b.ids !== undefined && { ids: b.ids as number[] }),
  };
}

function compactRequest(engine: SimApiServer, body: unknown) {
  const b = record(body, "compact");
  const rv = b.resourceVersion;
  if (rv !== undefined && !(typeof rv === "string" && /^\d+$/.test(rv)) && !(typeof rv === "number" && rv >= 0)) {
    throw new Error(`compact: resourceVersion must be a decimal string, got ${JSON.stringify(rv)}`);
  }
  const compacted = engine.faults.compact(rv === undefined ? undefined : Number(rv));
  return { compactedResourceVersion: String(compacted), resourceVersion: String(engine.currentResourceVersion) };
}

function reinitRequest(engine: SimApiServer, body: unknown) {
  const b = record(body, "reinit");
  if (b.resource !== undefined && typeof b.resource !== "string") throw new Error("reinit: resource must be a string");
  if (b.downtimeMs !== undefined && !(typeof b.downtimeMs === "number" && b.downtimeMs >= 0)) {
    throw new Error("reinit: downtimeMs must be a number ≥ 0");
  }
  engine.faults.reinitializeCache(b.resource as string | undefined, (b.downtimeMs as number | undefined) ?? 0);
  return { reinitialized: b.resource ?? "all" };
}

/**
 * Engine faults over the admin API (`POST /_sim/engine-faults`) and `--fault`:
 * `{"type":"latency","ms":200,"verbs":["list"],"resource":"configmaps"}` (until cleared),
 * `{"type":"bookmarks","mode":"off"|"no-periodic"|"on"}`,
 * `{"type":"drop-watches","resource":"configmaps","asError":false}` (one-shot),
 * `{"type":"stall-watchers","resource":"configmaps","userAgent":"slow","ids":[3],"future":true}` (a watcher that
 * stops reading; `future` also stalls matching watchers opened later), `{"type":"resume-watchers"}`,
 * `{"type":"compact","resourceVersion":"123"}`, `{"type":"reinit","resource":"configmaps","downtimeMs":2000}`.
 */
function engineFaults(engine: SimApiServer) {
  const latency = new Map<number, { rule: LatencyRule; remove: () => void }>();
  let nextId = 1;
  return {
    list: () => ({
      latency: [...latency.entries()].map(([id, l]) => ({ id, ...l.rule })),
      bookmarks: engine.faults.bookmarkMode,
    }),
    add(body: unknown) {
      const b = record(body, "engine fault");
      switch (b.type) {
        case "latency": {
          if (typeof b.ms !== "number" || !(b.ms >= 0))
            throw new Error(`latency: ms must be a number ≥ 0, got ${JSON.stringify(b.ms)}`);
          if (b.verbs !== undefined && !(Array.isArray(b.verbs) && b.verbs.every((v) => typeof v === "string"))) {
            throw new Error("latency: verbs must be an array of strings");
          }
          if (b.resource !== undefined && typeof b.resource !== "string")
            throw new Error("latency: resource must be a string");
          const rule: LatencyRule = {
            ms: b.ms,
            ...(b.verbs !== undefined && { verbs: b.verbs as string[] }),
            ...(b.resource !== undefined && { resource: b.resource as string }),
          };
          const id = nextId++;
          latency.set(id, { rule, remove: engine.faults.latency(rule) });
          return { id };
        }
        case "bookmarks": {
          if (!BOOKMARK_MODES.includes(b.mode as BookmarkMode)) {
            throw new Error(
              `bookmarks: mode must be one of ${BOOKMARK_MODES.join(", ")}, got ${JSON.stringify(b.mode)}`,
            );
          }
          engine.faults.bookmarks(b.mode as BookmarkMode);
          return { bookmarks: b.mode };
        }
        case "drop-watches": {
          if (b.resource !== undefined && typeof b.resource !== "string")
            throw new Error("drop-watches: resource must be a string");
          return { dropped: engine.faults.dropWatches(b.resource as string | undefined, b.asError === true) };
        }
        case "stall-watchers":
          return { stalled: engine.faults.stallWatchers(watcherSelector(b, "stall-watchers"), b.future === true) };
        case "resume-watchers":
          return { resumed: engine.faults.resumeWatchers(watcherSelector(b, "resume-watchers")) };
        case "compact":
          return compactRequest(engine, { ...b, type: undefined });
        case "reinit":
          return reinitRequest(engine, { ...b, type: undefined });
        default:
          throw new Error(
            `engine fault: type must be one of ${ENGINE_FAULT_TYPES.join(", ")}, got ${JSON.stringify(b.type)}`,
          );
      }
    },
    clear(id?: string) {
      if (id !== undefined) {
        if (!/^\d+$/.test(id)) throw new Error(`id must be an integer, got ${JSON.stringify(id)}`);
        const l = latency.get(Number(id));
        l?.remove();
        return { removed: latency.delete(Number(id)) ? 1 : 0 };
      }
      for (const l of latency.values()) l.remove();
      const removed = latency.size;
      latency.clear();
      engine.faults.bookmarks("on");
      engine.faults.resumeWatchers();
      return { removed };
    },
  };
}

/**
 * Builds the `apiserver` command's backend: the {@link SimApiServer} engine behind an {@link EngineBackend}, request
 * faults from `--fault`, and the `/_sim` admin API (faults, engine faults, compact, reinit, accounting, state).
 */
export async function createCliBackend(
  flags: ApiserverFlags,
  deps: {
    readonly clock: Clock;
    readonly rand?: Rand;
    /** The engine's logger (watcher terminations, cache re-initializations, at `info`). */
    readonly logger?: Logger;
    /** One audit-style JSON line per request. */
    readonly auditLog?: (line: string) => void;
  },
): Promise<CliBackend> {
  const metrics = new PromMetrics();
  let serviceAccountSigningKey: string | undefined;
  if (flags.serviceAccountSigningKeyFile !== undefined) {
    const file = flags.serviceAccountSigningKeyFile;
    try {
      serviceAccountSigningKey = await readFile(file, "utf8");
      signingKeysFromPem(serviceAccountSigningKey);
    } catch (err) {
      throw new Error(
        `--service-account-signing-key-file ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const engine = new SimApiServer({
    clock: deps.clock,
    ...(deps.rand !== undefined && { rand: deps.rand }),
    ...(flags.kubeVersion !== undefined && { kubeVersion: flags.kubeVersion }),
    watchList: flags.watchList,
    ...(flags.authorizationMode !== "AlwaysAllow" && { authorization: flags.authorizationMode }),
    ...(serviceAccountSigningKey !== undefined && { serviceAccountSigningKey }),
    minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
    metrics,
    ...(deps.logger !== undefined && { logger: deps.logger }),
    ...(flags.costModel === true && { costModel: true }),
    ...(flags.traceLogThresholdMs !== undefined && { traceLog: { thresholdMs: flags.traceLogThresholdMs } }),
  });
  if (deps.auditLog !== undefined) engine.accounting.auditLog = deps.auditLog;
  const backend = new EngineBackend(engine);
  const ef = engineFaults(engine);
  for (const [i, f] of flags.faults.entries()) {
    const type = (f as { type?: unknown } | null)?.type;
    try {
      if (typeof type === "string" && ENGINE_FAULT_TYPES.includes(type)) ef.add(f);
      else engine.faults.request(parseHttpFaultRule(f));
    } catch (err) {
      throw new Error(`--fault #${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const admin = createAdminHandler(engine.faults.requestFaults, {
    compact: (body) => compactRequest(engine, body),
    reinit: (body) => reinitRequest(engine, body),
    watchers: () => ({ watchers: engine.caches.watcherInfo() }),
    accounting: () => ({ requests: engine.accounting.rows() }),
    resetAccounting: () => {
      engine.accounting.reset();
      return {};
    },
    engineFaults: ef,
    state: () => engine.state(),
  });
  return {
    backend,
    engine,
    metrics,
    admin,
    async seed(objects) {
      for (const [i, obj] of objects.entries()) {
        const r = engine
          .resources()
          .find((x) => groupVersionString(x.group, x.version) === obj.apiVersion && x.kind === obj.kind);
        const what = `seed object ${i + 1} (${obj.apiVersion} ${obj.kind} ${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""})`;
        if (obj.apiVersion === "apiextensions.k8s.io/v1" && obj.kind === "CustomResourceDefinition") {
          try {
            engine.seedDefinition(obj);
          } catch (err) {
            throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
          }
          continue;
        }
        if (r === undefined) throw new Error(`${what}: kind is not served`);
        const ns = r.namespaced ? (obj.metadata?.namespace ?? "default") : "";
        try {
          engine.registry.seed(r, ns, obj);
        } catch (err) {
          throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    },
    async stop() {
      engine.stop();
    },
  };
}
