// The health endpoints `/healthz`, `/livez` and `/readyz`, as upstream's healthz handlers
// (staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go) answer them on a kube-apiserver v1.34 that is up.

/**
 * The named checks a kube-apiserver v1.34 installs on `/livez` (and `/healthz`): the server's own
 * (`ping`, `log`, `etcd`) and its post-start hooks, in the order it lists them. All of them pass in the simulator,
 * which has nothing that could fail them.
 */
const LIVE_CHECKS: readonly string[] = [
  "ping",
  "log",
  "etcd",
  "poststarthook/start-kube-apiserver-admission-initializer",
  "poststarthook/generic-apiserver-start-informers",
  "poststarthook/priority-and-fairness-config-consumer",
  "poststarthook/priority-and-fairness-filter",
  "poststarthook/storage-object-count-tracker-hook",
  "poststarthook/start-apiextensions-informers",
  "poststarthook/start-apiextensions-controllers",
  "poststarthook/crd-informer-synced",
  "poststarthook/start-system-namespaces-controller",
  "poststarthook/start-cluster-authentication-info-controller",
  "poststarthook/start-kube-apiserver-identity-lease-controller",
  "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
  "poststarthook/start-legacy-token-tracking-controller",
  "poststarthook/start-service-ip-repair-controllers",
  "poststarthook/rbac/bootstrap-roles",
  "poststarthook/scheduling/bootstrap-system-priority-classes",
  "poststarthook/priority-and-fairness-config-producer",
  "poststarthook/bootstrap-controller",
  "poststarthook/start-kubernetes-service-cidr-controller",
  "poststarthook/aggregator-reload-proxy-client-cert",
  "poststarthook/start-kube-aggregator-informers",
  "poststarthook/apiservice-status-local-available-controller",
  "poststarthook/apiservice-status-remote-available-controller",
  "poststarthook/apiservice-registration-controller",
  "poststarthook/apiservice-discovery-controller",
  "poststarthook/kube-apiserver-autoregistration",
  "autoregister-completion",
  "poststarthook/apiservice-openapi-controller",
  "poststarthook/apiservice-openapiv3-controller",
];

/** `/readyz` adds the readiness checks after `etcd` (`etcd-readiness`, `informer-sync`) and `shutdown` last. */
const READY_CHECKS: readonly string[] = [
  ...LIVE_CHECKS.slice(0, 3),
  "etcd-readiness",
  "informer-sync",
  ...LIVE_CHECKS.slice(3),
  "shutdown",
];

/** The endpoint names the health handlers serve. */
export type HealthEndpoint = "healthz" | "livez" | "readyz";

function checksOf(endpoint: HealthEndpoint): readonly string[] {
  return endpoint === "readyz" ? READY_CHECKS : LIVE_CHECKS;
}

/**
 * The answer to `GET /<endpoint>[/<check>]`: `ok`, or with `verbose` one `[+]<check> ok` line per check and
 * `<endpoint> check passed`; checks named by `exclude` print `[+]<check> excluded: ok`. A single check
 * (`/livez/etcd`) answers `ok`; an unknown one is undefined (the handler's 404).
 */
export function healthResponse(
  endpoint: HealthEndpoint,
  check: string | undefined,
  query: URLSearchParams,
): string | undefined {
  const checks = checksOf(endpoint);
  if (check !== undefined) return checks.includes(check) ? "ok" : undefined;
  if (!query.has("verbose")) return "ok";
  const excluded = new Set(query.getAll("exclude"));
  const lines = checks.map((c) => (excluded.has(c) ? `[+]${c} excluded: ok` : `[+]${c} ok`));
  return `${lines.join("\n")}\n${endpoint} check passed\n`;
}

/** Splits `/livez/poststarthook/x` into its endpoint and check; undefined when the path is no health endpoint. */
export function parseHealthPath(path: string): { endpoint: HealthEndpoint; check?: string } | undefined {
  const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
  if (m === null) return undefined;
  const endpoint = m[1] as HealthEndpoint;
  return m[2] === undefined ? { endpoint } : { endpoint, check: m[2] };
}
