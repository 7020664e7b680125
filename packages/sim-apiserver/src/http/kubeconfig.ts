import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { stringify } from "yaml";

/** What {@link writeKubeconfig} writes: the server, how to trust it, and how to authenticate. */
export interface KubeconfigOptions {
  /** `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** PEM CA certificate to trust (HTTPS). Omitted for plain HTTP. */
  readonly ca?: string;
  /** Bearer token. */
  readonly token?: string;
  /** PEM client certificate and key for client-certificate authentication. */
  readonly clientCert?: string;
  readonly clientKey?: string;
  /** Context namespace (default `default`). */
  readonly namespace?: string;
  /** Name used for the cluster, user and context entries (default `sim`). */
  readonly name?: string;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/**
 * Renders a kubeconfig (YAML, `apiVersion: v1`, `kind: Config`) with one cluster, user and context, all named
 * {@link KubeconfigOptions.name}, selected as `current-context`. Certificates are embedded as `*-data` fields so
 * the file is self-contained; kubectl, the Python client and `@kubernetes/client-node` all read it. For an
 * `http://` server the cluster is marked `insecure-skip-tls-verify: true`, without which client-node refuses plain
 * HTTP.
 */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  const name = opts.name ?? "sim";
  const cluster: Record<string, string | boolean> = { server: opts.server };
  if (opts.ca !== undefined) cluster["certificate-authority-data"] = b64(opts.ca);
  // @kubernetes/client-node refuses plain-HTTP servers unless TLS verification is marked as skipped; kubectl and
  // the Python client ignore the flag for http:// servers.
  if (opts.server.startsWith("http://")) cluster["insecure-skip-tls-verify"] = true;
  const user: Record<string, string> = {};
  if (opts.token !== undefined) user.token = opts.token;
  if (opts.clientCert !== undefined) user["client-certificate-data"] = b64(opts.clientCert);
  if (opts.clientKey !== undefined) user["client-key-data"] = b64(opts.clientKey);
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: opts.namespace ?? "default" } }],
    "current-context": name,
  };
  return stringify(doc);
}

/**
 * Writes {@link renderKubeconfig}'s output to `path` (mode 0600, parent directories created). Throws the
 * file-system error if it cannot be written.
 */
export function writeKubeconfig(path: string, opts: KubeconfigOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderKubeconfig(opts), { mode: 0o600 });
}
