import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import { PromMetrics } from "@informer-ts/instrumentation";
import { createAdminHandler } from "./admin.js";
import type { ApiBackend } from "./backend.js";
import type { ApiserverFlags } from "./cli-flags.js";
import { DEFAULT_VERBS, type ServedResource } from "./discovery.js";
import { HttpFaultInjector, parseHttpFaultRule } from "./http-faults.js";
import { MemoryBackend } from "./memory-backend.js";
import type { AdminHandler, MetricsRenderer } from "./server.js";

/** What `main.ts` runs: a backend, how to seed it, the admin API, metrics, and how to stop it. */
export interface CliBackend {
  readonly backend: ApiBackend;
  /** Creates the objects in order; throws an Error naming the first object that could not be created. */
  seed(objects: readonly KubeObject[]): Promise<void>;
  readonly admin: AdminHandler;
  /** Renders `/metrics`; the same registry receives the HTTP layer's request metrics. */
  readonly metrics: MetricsRenderer & MetricsProvider;
  stop(): Promise<void>;
}

const served = (
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  shortNames: string[] = [],
): ServedResource => ({
  group,
  version: "v1",
  resource,
  kind,
  singularName: kind.toLowerCase(),
  namespaced,
  shortNames,
  verbs: DEFAULT_VERBS,
});

/** Resources the command serves with the in-memory backend. */
export const CLI_RESOURCES: readonly ServedResource[] = [
  served("", "configmaps", "ConfigMap", true, ["cm"]),
  served("", "secrets", "Secret", true),
  served("", "namespaces", "Namespace", false, ["ns"]),
  served("", "pods", "Pod", true, ["po"]),
  served("", "services", "Service", true, ["svc"]),
  served("apps", "deployments", "Deployment", true, ["deploy"]),
];

function apiVersionOf(r: ServedResource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/**
 * Builds the backend of the `apiserver` command from its flags, with HTTP-level faults from `--fault` and the
 * `/_sim` admin API.
 */
export async function createCliBackend(
  flags: ApiserverFlags,
  deps: { readonly clock: Clock; readonly rand?: Rand },
): Promise<CliBackend> {
  const faults = new HttpFaultInjector(deps.rand);
  for (const f of flags.faults) faults.add(parseHttpFaultRule(f));
  const backend = new MemoryBackend(CLI_RESOURCES, faults);
  return {
    backend,
    metrics: new PromMetrics(),
    admin: createAdminHandler(faults),
    async seed(objects) {
      for (const [i, obj] of objects.entries()) {
        const r = CLI_RESOURCES.find((x) => apiVersionOf(x) === obj.apiVersion && x.kind === obj.kind);
        const what = `seed object ${i + 1} (${obj.apiVersion} ${obj.kind} ${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""})`;
        if (r === undefined) throw new Error(`${what}: kind is not served`);
        const ns = r.namespaced ? (obj.metadata?.namespace ?? "default") : "";
        const copy: KubeObject = { ...obj, metadata: { ...obj.metadata, ...(r.namespaced && { namespace: ns }) } };
        try {
          await backend.create(r, ns, copy);
        } catch (err) {
          throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    },
    async stop() {},
  };
}
