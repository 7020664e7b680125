import { existsSync, readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { join } from "node:path";
import type { KubeConfig, User } from "@kubernetes/client-node";
import { type AuthProvider, type ClientConfig, ConfigError, type RequestCredentials } from "./client-config.js";

type ClientNode = typeof import("@kubernetes/client-node");

let clientNode: Promise<ClientNode> | undefined;

/** `@kubernetes/client-node` costs ~0.5 s to import: load it only when a kubeconfig is actually read. */
function loadClientNode(): Promise<ClientNode> {
  clientNode ??= import("@kubernetes/client-node");
  return clientNode;
}

/** Where the service-account credentials of a pod are mounted. */
export const SERVICE_ACCOUNT_ROOT = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The fields of a kubeconfig `cluster` entry that {@link loadClientConfig} reads (client-node's `Cluster`). */
export interface KubeConfigCluster {
  readonly name: string;
  readonly server: string;
  readonly caData?: string | undefined;
  readonly caFile?: string | undefined;
  readonly skipTLSVerify?: boolean | undefined;
  readonly tlsServerName?: string | undefined;
  readonly proxyUrl?: string | undefined;
}

/** The fields of a kubeconfig `user` entry that {@link loadClientConfig} reads (client-node's `User`). */
export interface KubeConfigUser {
  readonly name: string;
  readonly certData?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyData?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly token?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly impersonateUser?: string | undefined;
  /** An exec credential plugin (`users[].user.exec`). */
  readonly exec?: unknown;
  /** A legacy auth provider (`users[].user.auth-provider`). */
  readonly authProvider?: unknown;
}

/**
 * What {@link loadClientConfig} needs of a loaded kubeconfig: the part of `@kubernetes/client-node`'s `KubeConfig`
 * it calls. A client-node `KubeConfig` is one (pass it as {@link KubeconfigLoadOptions.kubeConfig}).
 *
 * Declared here rather than imported from client-node so this package's public types do not pull in
 * client-node's declarations (which need `ws`'s types a consumer may not have).
 */
export interface KubeConfigSource {
  getCurrentContext(): string;
  setCurrentContext(context: string): void;
  getContextObject(
    name: string,
  ): { readonly cluster: string; readonly user: string; readonly namespace?: string | undefined } | null;
  getCluster(name: string): KubeConfigCluster | null;
  getUser(name: string): KubeConfigUser | null;
  /** Adds the user's credentials (exec plugins and auth providers refreshed as needed) to request options. */
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

/** How {@link loadClientConfig} finds the kubeconfig. The first option given wins. */
export interface KubeconfigLoadOptions {
  /** A client-node `KubeConfig` already loaded by the caller (custom authenticators stay in effect). */
  readonly kubeConfig?: KubeConfigSource;
  /** kubeconfig YAML/JSON text. */
  readonly kubeconfigString?: string;
  /** Path of a kubeconfig file (`--kubeconfig`). Relative certificate paths resolve against its directory. */
  readonly kubeconfigPath?: string;
  /** Use the pod's service account (`rest.InClusterConfig`), ignoring kubeconfig files. */
  readonly inCluster?: boolean;
  /** Use this context instead of `current-context` (`--context`). */
  readonly context?: string;
  /** Overrides for the resulting config. */
  readonly qps?: number;
  readonly burst?: number;
  readonly userAgent?: string;
  /** For tests: prefix of the service-account directory and an environment to read instead of `process.env`. */
  readonly inClusterPathPrefix?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A {@link ClientConfig} plus where it came from. */
export interface LoadedClientConfig extends ClientConfig {
  /** The context's namespace, or `default` (the service account's namespace in-cluster). */
  readonly namespace: string;
  /** Name of the context that was used. */
  readonly contextName: string;
}

function homeDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const h = env.HOME ?? env.USERPROFILE;
  return h === undefined || h === "" ? undefined : h;
}

/**
 * Loads a {@link ClientConfig} from a kubeconfig through `@kubernetes/client-node`'s `KubeConfig` (clientcmd's
 * loading rules):
 * 1. `kubeConfig`, `kubeconfigString`, `kubeconfigPath` or `inCluster`, when given;
 * 2. otherwise `$KUBECONFIG` (a path list, merged: the first file that sets a value wins, as client-node does);
 * 3. otherwise `~/.kube/config`;
 * 4. otherwise the in-cluster service account, when `KUBERNETES_SERVICE_HOST`/`PORT` are set;
 * 5. otherwise a {@link ConfigError} (client-go's "no configuration has been provided"; client-node would fall
 *    back to `http://localhost:8080`).
 *
 * Then the context (`context` or `current-context`) selects the cluster and user:
 * - cluster: `server`, `certificate-authority(-data)`, `insecure-skip-tls-verify`, `tls-server-name`;
 *   `proxy-url` is rejected (not supported);
 * - user: `token`, `client-certificate(-data)`/`client-key(-data)`, `username`/`password`, `as` (impersonation
 *   header), and `exec` plugins / `auth-provider`s (including the in-cluster token file), which become an
 *   {@link AuthProvider} that client-node's authenticators answer before every request (they cache and refresh:
 *   exec credentials until `expirationTimestamp`, token files every 60 s, OIDC on expiry).
 *
 * Differences from client-go: CA/certificate data takes precedence over a file path, as in client-go (client-node
 * prefers the file); exec plugins run on the first request, not at load time; `proxy-url` is refused.
 */
export async function loadClientConfig(options: KubeconfigLoadOptions = {}): Promise<LoadedClientConfig> {
  const env = options.env ?? process.env;
  const kc = options.kubeConfig ?? (await loadKubeConfigObject(options, env));
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      throw new ConfigError(`invalid configuration: context ${JSON.stringify(options.context)} does not exist`);
    }
    kc.setCurrentContext(options.context);
  }
  const contextName = kc.getCurrentContext();
  const context = contextName === undefined ? null : kc.getContextObject(contextName);
  if (context === null) {
    throw new ConfigError(
      contextName === undefined || contextName === ""
        ? "invalid configuration: no current-context is set"
        : `invalid configuration: context ${JSON.stringify(contextName)} does not exist`,
    );
  }
  const cluster = kc.getCluster(context.cluster);
  if (cluster === null) {
    throw new ConfigError(
      `invalid configuration: context ${JSON.stringify(contextName)} refers to cluster ${JSON.stringify(context.cluster)}, which does not exist`,
    );
  }
  const user = kc.getUser(context.user);
  const base = await clusterAndUserConfig(cluster, user, options.kubeConfig !== undefined ? kc : undefined);
  return {
    ...base,
    ...(options.qps !== undefined && { qps: options.qps }),
    ...(options.burst !== undefined && { burst: options.burst }),
    ...(options.userAgent !== undefined && { userAgent: options.userAgent }),
    namespace: present(context.namespace) && context.namespace.trim() !== "" ? context.namespace.trim() : "default",
    contextName,
  };
}

/**
 * `rest.InClusterConfig`: the pod's service account (token file re-read as it rotates, CA bundle, namespace).
 * Throws {@link ConfigError} outside a pod.
 */
export function inClusterConfig(
  options: Pick<KubeconfigLoadOptions, "inClusterPathPrefix" | "env" | "qps" | "burst" | "userAgent"> = {},
): Promise<LoadedClientConfig> {
  return loadClientConfig({ ...options, inCluster: true });
}

async function loadKubeConfigObject(
  options: KubeconfigLoadOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<KubeConfig> {
  const { KubeConfig } = await loadClientNode();
  const kc = new KubeConfig();
  const inCluster = () => {
    const host = env.KUBERNETES_SERVICE_HOST;
    const port = env.KUBERNETES_SERVICE_PORT;
    if (host === undefined || host === "" || port === undefined || port === "") {
      throw new ConfigError(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined",
      );
    }
    const prefix = options.inClusterPathPrefix ?? "";
    const tokenFile = `${prefix}${SERVICE_ACCOUNT_ROOT}/token`;
    if (!existsSync(tokenFile)) {
      throw new ConfigError(`unable to load in-cluster configuration: no service account token at ${tokenFile}`);
    }
    // client-node reads KUBERNETES_SERVICE_HOST/PORT from process.env; feed it ours.
    withEnv(env, () => kc.loadFromCluster(prefix));
  };
  try {
    if (options.kubeconfigString !== undefined) kc.loadFromString(options.kubeconfigString);
    else if (options.kubeconfigPath !== undefined) kc.loadFromFile(options.kubeconfigPath);
    else if (options.inCluster === true) inCluster();
    else {
      const list = env.KUBECONFIG;
      const home = homeDir(env);
      const defaultPath = home === undefined ? undefined : join(home, ".kube", "config");
      if (list !== undefined && list !== "") withEnv(env, () => kc.loadFromDefault());
      else if (defaultPath !== undefined && existsSync(defaultPath)) kc.loadFromFile(defaultPath);
      else if (env.KUBERNETES_SERVICE_HOST !== undefined && env.KUBERNETES_SERVICE_HOST !== "") inCluster();
      else {
        throw new ConfigError(
          "invalid configuration: no configuration has been provided (no $KUBECONFIG, no ~/.kube/config, not in a cluster)",
        );
      }
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`cannot load kubeconfig: ${message}`, { cause: err });
  }
  return kc;
}

/** Runs `fn` with `process.env` showing `env`'s Kubernetes variables (client-node reads process.env). */
function withEnv(env: Readonly<Record<string, string | undefined>>, fn: () => void): void {
  if (env === process.env) {
    fn();
    return;
  }
  const keys = ["KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "HOME"];
  const saved = keys.map((k) => [k, process.env[k]] as const);
  try {
    for (const k of keys) {
      const v = env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** client-node leaves absent kubeconfig fields as `null` or `undefined`; both (and "") mean "not set". */
function present<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null && (v as unknown) !== "";
}

function dataOrFile(
  data: string | null | undefined,
  file: string | null | undefined,
  what: string,
): Buffer | undefined {
  if (present(data)) return Buffer.from(data, "base64");
  if (present(file)) {
    try {
      return readFileSync(file);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new ConfigError(`invalid configuration: cannot read ${what} ${JSON.stringify(file)}: ${message}`);
    }
  }
  return undefined;
}

/** Maps a client-node cluster and user onto a {@link ClientConfig}. */
async function clusterAndUserConfig(
  cluster: KubeConfigCluster,
  user: KubeConfigUser | null,
  userKubeConfig: KubeConfigSource | undefined,
): Promise<ClientConfig> {
  if (!present(cluster.server)) {
    throw new ConfigError(`invalid configuration: cluster ${JSON.stringify(cluster.name)} has no server`);
  }
  if (present(cluster.proxyUrl)) {
    throw new ConfigError(
      `cluster ${JSON.stringify(cluster.name)}: proxy-url is not supported by @informer-ts/client (${cluster.proxyUrl})`,
    );
  }
  const config: { -readonly [K in keyof ClientConfig]: ClientConfig[K] } = { server: cluster.server };
  const ca = dataOrFile(cluster.caData, cluster.caFile, "certificate-authority");
  if (ca !== undefined) config.ca = ca;
  if (cluster.skipTLSVerify === true) config.insecureSkipTLSVerify = true;
  if (present(cluster.tlsServerName)) config.tlsServerName = cluster.tlsServerName;
  if (user === null) return config;

  const cert = dataOrFile(user.certData, user.certFile, "client-certificate");
  const key = dataOrFile(user.keyData, user.keyFile, "client-key");
  if (cert !== undefined) config.clientCert = cert;
  if (key !== undefined) config.clientKey = key;
  if (present(user.token)) config.token = user.token;
  if (present(user.username)) {
    config.username = user.username;
    config.password = user.password ?? "";
  }
  if (present(user.impersonateUser)) config.headers = { "Impersonate-User": user.impersonateUser };
  if (present(user.exec) || present(user.authProvider)) {
    config.authProvider = await authProviderFor(cluster, user, userKubeConfig);
  }
  return config;
}

/**
 * Wraps client-node's authenticators (exec, token file, OIDC, Azure, GCP) as an {@link AuthProvider}. A private
 * `KubeConfig` holding only this user (without its certificate files, and with TLS checks off since it never
 * connects) answers `applyToHTTPSOptions` before each request; its authenticators keep their caches.
 */
async function authProviderFor(
  cluster: KubeConfigCluster,
  user: KubeConfigUser,
  userKubeConfig: KubeConfigSource | undefined,
): Promise<AuthProvider> {
  let kc: KubeConfigSource | undefined = userKubeConfig;
  if (kc === undefined) {
    const { KubeConfig } = await loadClientNode();
    const authOnly = new KubeConfig();
    const authOnlyUser: User = {
      name: user.name,
      ...(present(user.exec) && { exec: user.exec }),
      ...(present(user.authProvider) && { authProvider: user.authProvider }),
      ...(present(user.token) && { token: user.token }),
      ...(present(user.impersonateUser) && { impersonateUser: user.impersonateUser }),
    };
    authOnly.loadFromClusterAndUser({ name: cluster.name, server: cluster.server, skipTLSVerify: true }, authOnlyUser);
    kc = authOnly;
  }
  const source = kc;
  return async (): Promise<RequestCredentials> => {
    const opts: RequestOptions = {};
    await source.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === "string" || typeof v === "number") headers[k] = String(v);
      else if (Array.isArray(v)) headers[k] = v.join(", ");
    }
    if (typeof opts.auth === "string" && opts.auth !== "") {
      headers.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    }
    const creds: { -readonly [K in keyof RequestCredentials]: RequestCredentials[K] } = { headers };
    // Exec plugins may hand out a client certificate (ExecCredential status.clientCertificateData).
    if (typeof opts.cert === "string" || Buffer.isBuffer(opts.cert)) creds.clientCert = opts.cert;
    if (typeof opts.key === "string" || Buffer.isBuffer(opts.key)) creds.clientKey = opts.key;
    return creds;
  };
}
