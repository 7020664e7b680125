// The manager's health and readiness checks, and the probe server that serves them with its metrics.
import type { MetricsProvider, PromMetrics } from "@informer-ts/instrumentation";
import { type HealthChecker, ProbeServer } from "./probe-server.js";

/**
 * The user's `/healthz` and `/readyz` checks of a manager (`AddHealthzCheck`, `AddReadyzCheck`), beside the built-in
 * `ping` and `manager` checks. Names are unique per endpoint, non-empty and without `/`; checks are added before the
 * endpoint is created. Violations throw an `Error` naming the problem.
 */
export class ManagerChecks {
  readonly healthz = new Map<string, HealthChecker>();
  readonly readyz = new Map<string, HealthChecker>();

  /** Adds `check` to `endpoint`; `created` says whether the endpoint has been created (the manager has run). */
  add(endpoint: "healthz" | "readyz", name: string, check: HealthChecker, created: boolean): void {
    if (typeof name !== "string" || name === "" || name.includes("/")) {
      throw new TypeError(
        `manager: a ${endpoint} check name must be a non-empty string without "/", got ${String(name)}`,
      );
    }
    if (typeof check !== "function") throw new TypeError(`manager: ${endpoint} check ${name} must be a function`);
    if (created) {
      throw new Error(
        `unable to add new checker because ${endpoint} endpoint has already been created (check ${name})`,
      );
    }
    const checks = this[endpoint];
    const builtin = endpoint === "healthz" ? "ping" : "manager";
    if (name === builtin || checks.has(name)) throw new Error(`${endpoint} check ${name} already exists`);
    checks.set(name, check);
  }
}

/**
 * The manager's probe server (not yet started): `/healthz` with `ping` (the manager's liveness: `undefined` while
 * running, else why not) and the user's checks, `/readyz` with `manager` (its readiness) and the user's checks, and
 * `/metrics` rendering `metrics` when it is a Prometheus registry.
 */
export function newManagerProbeServer(
  probe: { readonly port: number; readonly host?: string },
  checks: ManagerChecks,
  builtin: { readonly ping: () => string | undefined; readonly manager: () => string | undefined },
  metrics: MetricsProvider,
): ProbeServer {
  return new ProbeServer({
    ...probe,
    healthz: { ping: builtin.ping, ...Object.fromEntries(checks.healthz) },
    readyz: { manager: builtin.manager, ...Object.fromEntries(checks.readyz) },
    metrics: async () => {
      const m = metrics as Partial<PromMetrics>;
      if (typeof m.render !== "function") throw new Error("the metrics provider cannot render Prometheus text");
      return { body: await m.render(), contentType: m.contentType ?? "text/plain" };
    },
  });
}
