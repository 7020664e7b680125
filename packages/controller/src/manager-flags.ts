// kubebuilder's standard flags of a controller manager's main, parsed with node:util parseArgs.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type LogLevel, parseLogLevel } from "@informer-ts/instrumentation";

/** A listen address from a `--*-bind-address` flag: `undefined` when the flag is `0` (serve nothing). */
export interface BindAddress {
  readonly host: string;
  readonly port: number;
}

/** What {@link parseManagerFlags} read (kubebuilder's `main.go` flags plus controller-runtime's zap flags). */
export interface ManagerFlags {
  /** `--kubeconfig`: the kubeconfig file; absent → `$KUBECONFIG`, `~/.kube/config`, then the in-cluster config. */
  readonly kubeconfig?: string;
  /** `--metrics-bind-address`: a separate metrics server (default `0`: none — `/metrics` is on the probe address). */
  readonly metricsBindAddress: BindAddress | undefined;
  /** `--health-probe-bind-address` (default `:8081`; `0` disables the probes). */
  readonly healthProbeBindAddress: BindAddress | undefined;
  /** `--leader-elect` (default false). */
  readonly leaderElect: boolean;
  /** `--leader-election-id`: the Lease's name. */
  readonly leaderElectionID?: string;
  /** `--leader-election-namespace`: the Lease's namespace (default the in-cluster/kubeconfig namespace). */
  readonly leaderElectionNamespace?: string;
  /** `--zap-devel`: development logging (readable lines, debug level). */
  readonly zapDevel: boolean;
  /** `--zap-log-level` (`debug`, `info`, `warn`, `error`). */
  readonly zapLogLevel?: LogLevel;
  /** `--zap-encoder` (`json` or `console`). */
  readonly zapEncoder?: "json" | "console";
  /**
   * `--kube-api-qps` (kube-controller-manager's flag): the client's requests per second; negative disables
   * client-side rate limiting. Absent: client-go's default, 5 qps — which paces a simulated cluster too.
   */
  readonly kubeApiQps?: number;
  /** `--kube-api-burst`: the client's burst (client-go's default 10). */
  readonly kubeApiBurst?: number;
  /** The values of the caller's own flags (`extraFlags`), by name. */
  readonly extra: Readonly<Record<string, string | boolean | undefined>>;
}

/** A bad command line: the message names the flag and the value. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

/** The usage text of the standard flags, for a program's `--help`. */
export const managerFlagsUsage = `  --kubeconfig <file>                 kubeconfig (default $KUBECONFIG, ~/.kube/config, or the in-cluster config)
  --metrics-bind-address <addr>       a separate /metrics server (default 0: /metrics is on the probe address)
  --health-probe-bind-address <addr>  /healthz, /readyz and /metrics (default :8081; 0 disables)
  --leader-elect                      enable leader election (one active replica)
  --leader-election-id <name>         the leader election Lease's name
  --leader-election-namespace <ns>    the Lease's namespace (default: the in-cluster or kubeconfig namespace)
  --zap-devel                         development logging: readable lines, debug level
  --zap-log-level <level>             debug, info, warn or error (default info)
  --zap-encoder <json|console>        log line format (default json; console in development or on a terminal)
  --kube-api-qps <n>                  client requests per second (default client-go's 5; negative: no limit)
  --kube-api-burst <n>                client burst (default client-go's 10)
`;

const options = {
  kubeconfig: { type: "string" },
  "metrics-bind-address": { type: "string", default: "0" },
  "health-probe-bind-address": { type: "string", default: ":8081" },
  "leader-elect": { type: "boolean", default: false },
  "leader-election-id": { type: "string" },
  "leader-election-namespace": { type: "string" },
  "zap-devel": { type: "boolean", default: false },
  "zap-log-level": { type: "string" },
  "zap-encoder": { type: "string" },
  "kube-api-qps": { type: "string" },
  "kube-api-burst": { type: "string" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses kubebuilder's standard manager flags from `argv` — `process.argv` itself (its first two entries, node and
 * the script, are skipped) or the arguments alone. `--flag value` and `--flag=value` both work. Unknown flags and
 * positional arguments are a {@link FlagError}, unless declared in `extraFlags` (node's `parseArgs` options), whose
 * values come back in `extra`. Bind addresses are `[host]:port` as in Go (`:8080` is every interface) or `0` to
 * disable; a bad one, a bad level or encoder is a {@link FlagError} naming it.
 */
export function parseManagerFlags(
  argv: readonly string[],
  extraFlags: NonNullable<ParseArgsConfig["options"]> = {},
): ManagerFlags {
  const args = argv === process.argv ? argv.slice(2) : [...argv];
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { ...extraFlags, ...options }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new FlagError(err instanceof Error ? err.message : String(err));
  }
  const str = (k: string) => values[k] as string | undefined;
  const level = str("zap-log-level");
  const parsedLevel = level === undefined ? undefined : parseLogLevel(level);
  if (level !== undefined && parsedLevel === undefined) {
    throw new FlagError(`--zap-log-level: must be debug, info, warn or error, got ${JSON.stringify(level)}`);
  }
  const encoder = str("zap-encoder");
  if (encoder !== undefined && encoder !== "json" && encoder !== "console") {
    throw new FlagError(`--zap-encoder: must be json or console, got ${JSON.stringify(encoder)}`);
  }
  const qps = numberFlag("kube-api-qps", str("kube-api-qps"), false);
  const burst = numberFlag("kube-api-burst", str("kube-api-burst"), true);
  const id = str("leader-election-id");
  const ns = str("leader-election-namespace");
  const extra: Record<string, string | boolean | undefined> = {};
  for (const k of Object.keys(extraFlags)) extra[k] = values[k] as string | boolean | undefined;
  return {
    ...(str("kubeconfig") !== undefined && { kubeconfig: str("kubeconfig") }),
    metricsBindAddress: bindAddress("metrics-bind-address", str("metrics-bind-address") ?? "0"),
    healthProbeBindAddress: bindAddress("health-probe-bind-address", str("health-probe-bind-address") ?? ":8081"),
    leaderElect: values["leader-elect"] === true,
    ...(id !== undefined && { leaderElectionID: id }),
    ...(ns !== undefined && { leaderElectionNamespace: ns }),
    zapDevel: values["zap-devel"] === true,
    ...(parsedLevel !== undefined && { zapLogLevel: parsedLevel }),
    ...(encoder !== undefined && { zapEncoder: encoder as "json" | "console" }),
    ...(qps !== undefined && { kubeApiQps: qps }),
    ...(burst !== undefined && { kubeApiBurst: burst }),
    extra,
  };
}

/** A number flag's value (`burst`: a positive integer); a bad one is a {@link FlagError} naming the flag. */
function numberFlag(flag: string, value: string | undefined, positiveInteger: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === "" ? Number.NaN : Number(value);
  const ok = positiveInteger ? Number.isInteger(n) && n > 0 : Number.isFinite(n) && n !== 0;
  if (!ok) {
    const want = positiveInteger ? "a positive integer" : "a number other than 0 (negative: no limit)";
    throw new FlagError(`--${flag}: must be ${want}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** `[host]:port` → host and port (`:8080` → every interface, as Go's listener); `0` → `undefined` (disabled). */
export function bindAddress(flag: string, value: string): BindAddress | undefined {
  if (value === "0") return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]*):(\d{1,5})$/.exec(value);
  const port = m === null ? Number.NaN : Number(m[2]);
  if (m === null || port > 65535) {
    throw new FlagError(`--${flag}: not a [host]:port address or 0, got ${JSON.stringify(value)}`);
  }
  const host = m[1] === "" ? "0.0.0.0" : (m[1] as string).replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}
