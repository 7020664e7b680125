import { parseCommandLine } from "@informer-ts/apimachinery";
import type { AuthorizationMode } from "../engine/authorization/index.js";
import { DEFAULT_KUBE_VERSION, type KubeVersion, kubeVersionGates, parseKubeVersion } from "../engine/kube-version.js";

export { USAGE } from "./cli-usage.js";

/** The parsed command line of `pnpm apiserver` (`node packages/sim-apiserver/dist/main.js`). */
export interface ApiserverFlags {
  readonly host: string;
  readonly port: number;
  readonly seed?: string;
  readonly tls: boolean;
  readonly tokens: readonly string[];
  readonly clientCertAuth: boolean;
  /** `--authorization-mode` (default `AlwaysAllow`): `RBAC` enforces the stored roles and bindings. */
  readonly authorizationMode: AuthorizationMode;
  /** `--service-account-signing-key-file`: the PEM RSA private key service-account tokens are signed with. */
  readonly serviceAccountSigningKeyFile?: string;
  readonly kubeconfigOut?: string;
  /** `--kube-version` (absent: 1.34): the release whose cache-vs-etcd routing the server reproduces. */
  readonly kubeVersion?: KubeVersion;
  /** The WatchList gate: the `--kube-version`'s default, false with `--no-watch-list`. */
  readonly watchList: boolean;
  readonly httpLog: boolean;
  /** `--audit-log <file>`: one audit-style JSON line per request, appended to the file (`-` = stderr). */
  readonly auditLog?: string;
  readonly minRequestTimeoutSeconds: number;
  readonly randSeed?: number;
  /** `--cost-model`: the engine's request cost model (virtual latency, CPU and APF seats in the accounting). */
  readonly costModel?: boolean;
  /** `--trace-log <ms>`: write kube-apiserver-style traces of requests that took at least this long (engine log). */
  readonly traceLogThresholdMs?: number;
  /** `--fault <json>` (repeatable): fault specs handed to the engine's fault injector. */
  readonly faults: readonly unknown[];
  readonly help: boolean;
}

function int(name: string, v: string | undefined, def: number): number {
  if (v === undefined) return def;
  if (!/^[0-9]+$/.test(v)) throw new Error(`--${name}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

/**
 * Parses the `apiserver` command line. Throws an Error naming the bad flag (unknown flags, with the closest known
 * one: `unknown option --kubeconfig; did you mean --kubeconfig-out?`; missing values, bad integers, bad `--fault`
 * JSON, an unknown `--kube-version`, `--client-cert-auth` without `--tls`); the CLI prints it with the usage and
 * exits 2.
 */
export function parseApiserverFlags(argv: readonly string[]): ApiserverFlags {
  const { values } = parseCommandLine({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      seed: { type: "string" },
      tls: { type: "boolean" },
      token: { type: "string", multiple: true },
      "client-cert-auth": { type: "boolean" },
      "authorization-mode": { type: "string" },
      "service-account-signing-key-file": { type: "string" },
      "kubeconfig-out": { type: "string" },
      "no-watch-list": { type: "boolean" },
      "kube-version": { type: "string" },
      "min-request-timeout": { type: "string" },
      "rand-seed": { type: "string" },
      fault: { type: "string", multiple: true },
      "http-log": { type: "boolean" },
      "audit-log": { type: "string" },
      "cost-model": { type: "boolean" },
      "trace-log": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const port = int("port", values.port, 0);
  if (port > 65535) throw new Error(`--port: ${port} is not a valid port`);
  const faults = (values.fault ?? []).map((f) => {
    try {
      return JSON.parse(f) as unknown;
    } catch (err) {
      throw new Error(
        `--fault: invalid JSON ${JSON.stringify(f)}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  });
  let kubeVersion: KubeVersion | undefined;
  if (values["kube-version"] !== undefined) {
    try {
      kubeVersion = parseKubeVersion(values["kube-version"]);
    } catch (err) {
      throw new Error(`--kube-version: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const authorizationMode = values["authorization-mode"] ?? "AlwaysAllow";
  if (authorizationMode !== "AlwaysAllow" && authorizationMode !== "RBAC") {
    throw new Error(`--authorization-mode: unknown mode ${JSON.stringify(authorizationMode)} (AlwaysAllow or RBAC)`);
  }
  if (values["client-cert-auth"] === true && values.tls !== true) {
    throw new Error("--client-cert-auth needs --tls");
  }
  return {
    host: values.host ?? "127.0.0.1",
    port,
    ...(values.seed !== undefined && { seed: values.seed }),
    tls: values.tls === true,
    tokens: values.token ?? [],
    clientCertAuth: values["client-cert-auth"] === true,
    authorizationMode,
    ...(values["service-account-signing-key-file"] !== undefined && {
      serviceAccountSigningKeyFile: values["service-account-signing-key-file"],
    }),
    ...(values["kubeconfig-out"] !== undefined && { kubeconfigOut: values["kubeconfig-out"] }),
    ...(kubeVersion !== undefined && { kubeVersion }),
    watchList: values["no-watch-list"] !== true && kubeVersionGates(kubeVersion ?? DEFAULT_KUBE_VERSION).watchList,
    httpLog: values["http-log"] === true,
    ...(values["audit-log"] !== undefined && { auditLog: values["audit-log"] }),
    minRequestTimeoutSeconds: int("min-request-timeout", values["min-request-timeout"], 1800),
    ...(values["rand-seed"] !== undefined && { randSeed: int("rand-seed", values["rand-seed"], 0) }),
    ...(values["cost-model"] === true && { costModel: true }),
    ...(values["trace-log"] !== undefined && { traceLogThresholdMs: int("trace-log", values["trace-log"], 500) }),
    faults,
    help: values.help === true,
  };
}
