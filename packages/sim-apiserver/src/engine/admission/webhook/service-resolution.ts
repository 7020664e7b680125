import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimResource } from "../../resources.js";
import type { MvccStorage } from "../../storage/index.js";
import type { WebhookTarget } from "./webhook-client.js";
import { WebhookCallError } from "./webhook-client.js";
import type { WebhookClientConfig } from "./webhook-source.js";

function find(resources: readonly SimResource[], group: string, resource: string): SimResource | undefined {
  return resources.find((r) => r.group === group && r.resource === resource && r.storedAs === undefined);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** `host:port` of a ready endpoint serving the Service port named `portName`, from EndpointSlices then Endpoints. */
function endpointOf(
  storage: MvccStorage,
  resources: readonly SimResource[],
  namespace: string,
  service: string,
  portName: string,
): string | undefined {
  const slices = find(resources, "discovery.k8s.io", "endpointslices");
  if (slices !== undefined) {
    for (const [, s] of storage.snapshot(slices)) {
      if (s.metadata?.namespace !== namespace) continue;
      if (s.metadata?.labels?.["kubernetes.io/service-name"] !== service) continue;
      const port = list((s as { ports?: unknown }).ports).find((p) => String(p.name ?? "") === portName);
      if (port === undefined || typeof port.port !== "number") continue;
      for (const e of list((s as { endpoints?: unknown }).endpoints)) {
        const cond = isObject(e.conditions) ? e.conditions : {};
        const addr = Array.isArray(e.addresses) ? e.addresses[0] : undefined;
        if (cond.ready === false || typeof addr !== "string") continue;
        return `${addr.includes(":") ? `[${addr}]` : addr}:${port.port}`;
      }
    }
  }
  const eps = find(resources, "", "endpoints");
  const ep = eps === undefined ? undefined : storage.get(eps, namespace, service);
  for (const subset of list((ep as { subsets?: unknown } | undefined)?.subsets)) {
    const port = list(subset.ports).find((p) => String(p.name ?? "") === portName);
    const addr = list(subset.addresses)[0]?.ip;
    if (port !== undefined && typeof port.port === "number" && typeof addr === "string") return `${addr}:${port.port}`;
  }
  return undefined;
}

/**
 * Where a webhook is called: `clientConfig.url` as given, or a `clientConfig.service` resolved as kube-apiserver's
 * endpoint routing does — the Service's port, then a ready endpoint of its EndpointSlices (or Endpoints) for that
 * port's name — with the serving certificate verified for `<service>.<namespace>.svc`. A Service without ready
 * endpoints fails the call (the simulator runs no pods: the test or tool publishes the webhook server's address
 * as an EndpointSlice).
 */
export function resolveWebhookTarget(
  cfg: WebhookClientConfig,
  storage: MvccStorage,
  resources: readonly SimResource[],
): WebhookTarget {
  const ca = cfg.caBundle !== undefined ? { caBundle: cfg.caBundle } : {};
  if (cfg.url !== undefined) return { url: cfg.url, ...ca };
  const s = cfg.service;
  if (s === undefined) throw new WebhookCallError("webhook has neither url nor service in clientConfig");
  const services = find(resources, "", "services");
  const svc: KubeObject | undefined = services === undefined ? undefined : storage.get(services, s.namespace, s.name);
  if (svc === undefined) throw new WebhookCallError(`service "${s.name}" not found`);
  const port = list((svc.spec as { ports?: unknown } | undefined)?.ports).find((p) => p.port === s.port);
  if (port === undefined) throw new WebhookCallError(`no service port ${s.port} found for service "${s.name}"`);
  const hostPort = endpointOf(storage, resources, s.namespace, s.name, String(port.name ?? ""));
  if (hostPort === undefined) throw new WebhookCallError(`no endpoints available for service "${s.name}"`);
  const path = s.path ?? "";
  return {
    url: `https://${hostPort}${path.startsWith("/") || path === "" ? path : `/${path}`}`,
    serverName: `${s.name}.${s.namespace}.svc`,
    ...ca,
  };
}
