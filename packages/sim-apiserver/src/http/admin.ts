import { StatusError } from "@informer-ts/apimachinery";
import { type HttpFaultInjector, parseHttpFaultRule } from "../engine/filters/index.js";
import type { AdminHandler } from "./server.js";

/**
 * Engine operations the admin API exposes when the backend provides them. Each receives the parsed JSON body
 * (or `undefined`) and returns a JSON-able result; throwing an Error answers 400 with its message, a `StatusError`
 * its code.
 */
export interface AdminHooks {
  /** `POST /_sim/compact`: compact storage history (body e.g. `{"resourceVersion":"123"}`). */
  compact?(body: unknown): unknown | Promise<unknown>;
  /** `POST /_sim/reinit`: re-initialize watch caches (body e.g. `{"resource":"configmaps"}`): all watchers closed. */
  reinit?(body: unknown): unknown | Promise<unknown>;
  /** `GET /_sim/watchers`: open watchers (id, resource, user agent, stalled, buffer fill), to pick fault targets. */
  watchers?(): unknown | Promise<unknown>;
  /** `GET /_sim/accounting`: request accounting snapshot. */
  accounting?(): unknown | Promise<unknown>;
  /** `DELETE /_sim/accounting`: reset the accounting counters. */
  resetAccounting?(): unknown | Promise<unknown>;
  /** Storage-level faults (`/_sim/engine-faults`): list / add (body) / clear. */
  engineFaults?: {
    list(): unknown;
    add(body: unknown): unknown;
    clear(id?: string): unknown;
  };
  /** `GET /_sim/state`: anything else worth showing (RVs, cache sizes, watcher counts). */
  state?(): unknown | Promise<unknown>;
}

const notFound = (path: string) => ({ status: 404, body: { error: `unknown admin path /_sim/${path}` } });
const methodNotAllowed = (method: string, path: string) => ({
  status: 405,
  body: { error: `${method} not allowed on /_sim/${path}` },
});

/**
 * The `/_sim/*` admin API over JSON:
 *
 * | request | effect |
 * |---|---|
 * | `GET /_sim/` | the list of endpoints available with this backend |
 * | `GET /_sim/faults` | HTTP-level fault rules with `matched`/`fired` counters |
 * | `POST /_sim/faults` + rule | add a rule (see `HttpFaultRule`); answers `{"id":n}` |
 * | `DELETE /_sim/faults[?id=n]` | remove one rule or all |
 * | `POST /_sim/compact`, `POST /_sim/reinit` | engine compaction / watch-cache re-initialization |
 * | `GET`/`DELETE /_sim/accounting` | engine request accounting / reset |
 * | `GET`/`POST`/`DELETE /_sim/engine-faults` | engine (storage-level) faults |
 * | `GET /_sim/watchers` | open watchers with ids and user agents (targets for `stall-watchers`) |
 * | `GET /_sim/state` | engine state summary |
 *
 * Engine endpoints answer 404 when the backend does not provide the hook. Bad input answers 400 `{"error":…}`; a
 * hook's `StatusError` answers its code (a resource that is not served: 404 `{"error":"the server could not find the
 * requested resource (x)"}`).
 */
export function createAdminHandler(faults: HttpFaultInjector, hooks: AdminHooks = {}): AdminHandler {
  return async (path, method, body, query) => {
    const p = path.replace(/\/+$/, "");
    try {
      switch (p) {
        case "": {
          const endpoints = ["faults"];
          if (hooks.compact) endpoints.push("compact");
          if (hooks.reinit) endpoints.push("reinit");
          if (hooks.watchers) endpoints.push("watchers");
          if (hooks.accounting) endpoints.push("accounting");
          if (hooks.engineFaults) endpoints.push("engine-faults");
          if (hooks.state) endpoints.push("state");
          return { body: { endpoints: endpoints.map((e) => `/_sim/${e}`) } };
        }
        case "faults":
          if (method === "GET") return { body: { faults: faults.list() } };
          if (method === "POST") return { status: 201, body: { id: faults.add(parseHttpFaultRule(body)) } };
          if (method === "DELETE") {
            const id = query.get("id");
            if (id !== null && !/^\d+$/.test(id)) throw new Error(`id must be an integer, got ${JSON.stringify(id)}`);
            return { body: { removed: faults.clear(id === null ? undefined : Number(id)) } };
          }
          return methodNotAllowed(method, p);
        case "compact":
          if (!hooks.compact) return notFound(p);
          if (method !== "POST") return methodNotAllowed(method, p);
          return { body: (await hooks.compact(body)) ?? {} };
        case "reinit":
          if (!hooks.reinit) return notFound(p);
          if (method !== "POST") return methodNotAllowed(method, p);
          return { body: (await hooks.reinit(body)) ?? {} };
        case "accounting":
          if (!hooks.accounting) return notFound(p);
          if (method === "GET") return { body: (await hooks.accounting()) ?? {} };
          if (method === "DELETE" && hooks.resetAccounting) return { body: (await hooks.resetAccounting()) ?? {} };
          return methodNotAllowed(method, p);
        case "engine-faults":
          if (!hooks.engineFaults) return notFound(p);
          if (method === "GET") return { body: hooks.engineFaults.list() ?? {} };
          if (method === "POST") return { status: 201, body: hooks.engineFaults.add(body) ?? {} };
          if (method === "DELETE") return { body: hooks.engineFaults.clear(query.get("id") ?? undefined) ?? {} };
          return methodNotAllowed(method, p);
        case "watchers":
          if (!hooks.watchers) return notFound(p);
          if (method !== "GET") return methodNotAllowed(method, p);
          return { body: (await hooks.watchers()) ?? {} };
        case "state":
          if (!hooks.state) return notFound(p);
          return { body: (await hooks.state()) ?? {} };
        default:
          return notFound(p);
      }
    } catch (err) {
      // An API error keeps its code (a resource that is not served is a 404 naming it); any other is bad input.
      const status = err instanceof StatusError && err.code >= 400 ? err.code : 400;
      return { status, body: { error: err instanceof Error ? err.message : String(err) } };
    }
  };
}
