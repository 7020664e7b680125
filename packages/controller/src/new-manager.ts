// The one-line main: a Manager built from the command line — client, lister-watchers, probes, metrics, election, logs.
import type { ParseArgsConfig } from "node:util";
import {
  type ClientConfig,
  KubeClient,
  type KubeClientOptions,
  listWatchFor,
  loadClientConfig,
} from "@informer-ts/client";
import { type Logger, newRuntimeLogger, safeLog, withFields } from "@informer-ts/instrumentation";
import { Manager, type ManagerLeaderElectionOptions, type ManagerOptions, newDefaultMetrics } from "./manager.js";
import { FlagError, type ManagerFlags, parseManagerFlags } from "./manager-flags.js";

/** Options of {@link newManager}: a {@link ManagerOptions} without what the command line and kubeconfig give. */
export interface NewManagerOptions
  extends Omit<ManagerOptions, "listerWatcherFor" | "client" | "probe" | "metricsServer" | "leaderElection"> {
  /** The command line: `process.argv` (node and the script are skipped) or the arguments alone. Default none. */
  readonly flags?: readonly string[];
  /** The program's own flags besides the standard ones (node's `parseArgs` options); their values are in `flags.extra`. */
  readonly extraFlags?: NonNullable<ParseArgsConfig["options"]>;
  /** A kubeconfig file to use when `--kubeconfig` is not given. */
  readonly kubeconfig?: string;
  /** Use this connection instead of loading a kubeconfig (tests, a `--server` flag of the program's own). */
  readonly clientConfig?: ClientConfig;
  /** More options of the `KubeClient` (a dispatcher, retries…); its clock, metrics and logger are the manager's. */
  readonly clientOptions?: Omit<KubeClientOptions, "clock" | "metrics" | "logger" | "quiet">;
  /** The leader election Lease's name when `--leader-election-id` is not given (kubebuilder hard-codes one). */
  readonly leaderElectionID?: string;
  /** More leader election settings (durations, `releaseOnCancel`, `fencing`); the flags give namespace and name. */
  readonly leaderElection?: Omit<ManagerLeaderElectionOptions, "namespace" | "name"> & {
    readonly namespace?: string;
    readonly name?: string;
  };
}

/** A {@link Manager} built by {@link newManager}, with the client it built and the flags it read. */
export interface BuiltManager {
  readonly manager: Manager;
  /** The manager's `KubeClient` (closed when the manager's run ends). */
  readonly client: KubeClient;
  readonly flags: ManagerFlags;
}

/**
 * The one-line main (kubebuilder's `main.go` in one call): parses the standard flags (see {@link parseManagerFlags}),
 * builds the runtime logger from the `--zap-*` flags (unless `logger` or `quiet` is given), loads the connection
 * (`--kubeconfig`, else `kubeconfig`, `$KUBECONFIG`, `~/.kube/config`, then the in-cluster service account), builds
 * one `KubeClient` reporting `rest_client_*` metrics into the manager's registry, and a {@link Manager} whose
 * lister-watchers are `listWatchFor(client, …)`, serving `/healthz`, `/readyz` and `/metrics` on
 * `--health-probe-bind-address` and `/metrics` also on `--metrics-bind-address` when one is given (kubebuilder's
 * default `0` starts no separate metrics server), with leader election when
 * `--leader-elect` is given (Lease `--leader-election-id` or `leaderElectionID` in `--leader-election-namespace`,
 * default the kubeconfig's or service account's namespace), and SIGTERM/SIGINT handling on unless
 * `handleSignals: false`. The client is closed when the manager's run ends.
 *
 * The client keeps client-go's client-side rate limit (5 qps, burst 10) unless `--kube-api-qps`/`--kube-api-burst`
 * or `clientConfig`'s `qps`/`burst` say otherwise. Against a simulated cluster that limit, not the simulator, sets
 * the pace (40 creates take 6 s); pass `--kube-api-qps=-1` or `clientConfig: { server, qps: -1 }` there.
 *
 * Rejects with a {@link FlagError} naming a bad flag, or with the kubeconfig loader's error; nothing is left open.
 *
 * ```ts
 * const { manager } = await newManager({ flags: process.argv, leaderElectionID: "mirror.example.com" });
 * newControllerManagedBy(manager).for(builtinResources.configmaps).complete(reconcile);
 * await manager.run(new AbortController().signal);
 * ```
 */
export async function newManager(options: NewManagerOptions = {}): Promise<BuiltManager> {
  const flags = parseManagerFlags(options.flags ?? [], options.extraFlags);
  const logger: Logger =
    options.logger ??
    newRuntimeLogger({
      development: flags.zapDevel,
      ...(flags.zapLogLevel !== undefined && { level: flags.zapLogLevel }),
      ...(flags.zapEncoder !== undefined && { format: flags.zapEncoder === "json" ? "json" : "text" }),
    });
  const path = flags.kubeconfig ?? options.kubeconfig;
  const loaded =
    options.clientConfig !== undefined && flags.kubeconfig === undefined
      ? { ...options.clientConfig, namespace: "default" }
      : await loadClientConfig(path !== undefined ? { kubeconfigPath: path } : {});
  // Client-side rate limit: the flags, else the kubeconfig's/clientConfig's, else client-go's 5 qps / 10 burst.
  const config: ClientConfig = {
    ...loaded,
    ...(flags.kubeApiQps !== undefined && { qps: flags.kubeApiQps }),
    ...(flags.kubeApiBurst !== undefined && { burst: flags.kubeApiBurst }),
  };
  const metrics = options.metrics ?? newDefaultMetrics();
  const {
    flags: _f,
    extraFlags: _e,
    kubeconfig: _k,
    clientConfig: _c,
    clientOptions,
    leaderElectionID: _id,
    leaderElection: _le,
    ...managerOptions
  } = options;
  const leaderElectionOptions = flags.leaderElect ? electionOf(flags, loaded.namespace, options) : undefined;
  const client = new KubeClient(config, {
    ...clientOptions,
    ...(options.clock !== undefined && { clock: options.clock }),
    metrics,
    ...(options.quiet === true ? { quiet: true } : { logger: withFields(logger, { logger: "client" }) }),
  });
  const probe = flags.healthProbeBindAddress;
  const m = flags.metricsBindAddress;
  // One server when both flags name the same address (port 0 picks a free port each: two servers then).
  const together =
    probe !== undefined && m !== undefined && probe.host === m.host && probe.port === m.port && m.port !== 0;
  let manager: Manager;
  try {
    manager = new Manager({
      handleSignals: true,
      ...managerOptions,
      metrics,
      logger,
      listerWatcherFor: (r, { namespace }) => listWatchFor(client, r, { namespace }),
      client,
      ...(probe !== undefined && { probe: { port: probe.port, host: probe.host } }),
      ...(m !== undefined && !together && { metricsServer: { port: m.port, host: m.host } }),
      ...(leaderElectionOptions !== undefined && { leaderElection: leaderElectionOptions }),
    });
  } catch (err) {
    await client.close();
    throw err;
  }
  manager.events$.subscribe((e) => {
    if (e.type !== "stopped") return;
    client.close().catch((err: unknown) => {
      if (options.quiet !== true) safeLog(logger, "error", "closing the client failed", { error: err });
    });
  });
  return { manager, client, flags };
}

function electionOf(flags: ManagerFlags, namespace: string, options: NewManagerOptions): ManagerLeaderElectionOptions {
  const name = flags.leaderElectionID ?? options.leaderElection?.name ?? options.leaderElectionID;
  if (name === undefined || name === "") {
    throw new FlagError(
      "--leader-elect: the Lease needs a name: pass --leader-election-id or newManager's leaderElectionID",
    );
  }
  return {
    ...options.leaderElection,
    namespace: flags.leaderElectionNamespace ?? options.leaderElection?.namespace ?? namespace,
    name,
  };
}
