// kubectl pointed at a simulator, as the kubectl test files share it: `useKubectlSim` (a bare simulator, or any server
// a test file starts, with kubectl reaching it by --server and a fresh cache dir) and `useKubectlCluster` (the
// simulator with a cluster inside it: sim-cluster over HTTP, in real time, reached through its kubeconfig).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { KubeClient } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { DEFAULT_POD_STAGES, SimClusterRuntime, type Stage } from "@informer-ts/sim-cluster";
import { afterAll, beforeAll } from "vitest";
import { E2E_STAGES } from "../conformance/e2e/harness.js";
import { type RunResult, run, type Streaming, spawnStreaming } from "./run.js";
import { type SimHandle, startSim } from "./sim.js";
import { checkKubectl, freshDir, kubectlBin, requireTool, type ToolCheck } from "./tools.js";

/** What a server must offer to be a {@link useKubectlSim} target. */
export interface KubectlTarget {
  readonly url: string;
  close(): Promise<void>;
}

/** Options of one {@link KubectlSimFixture.k} call. */
export interface KubectlRunOptions {
  /** Extra environment (EDITOR for `kubectl edit`). */
  readonly env?: Record<string, string>;
  /** Piped to kubectl's stdin (`-f -`). */
  readonly input?: string;
  /** Default 60 s. */
  readonly timeoutMs?: number;
}

/** What {@link useKubectlSim} gives a test file. */
export interface KubectlSimFixture<S extends KubectlTarget> {
  /** Whether kubectl runs here (why not, when it does not). */
  readonly check: ToolCheck;
  /** The running server (only inside a test that called {@link KubectlSimFixture.require}). */
  readonly sim: () => S;
  /** The file's fresh temporary directory: kubectl's cache dir is in it, manifests go in it. */
  readonly dir: () => string;
  /** Runs `kubectl --server=<url> --cache-dir <dir>/cache …args` with no kubeconfig; its exit code and output. */
  readonly k: (args: readonly string[], opts?: KubectlRunOptions) => Promise<RunResult>;
  /** The same kubectl as {@link KubectlSimFixture.k}, left running with its stdout read line by line (`get -w`). */
  readonly stream: (args: readonly string[]) => Streaming;
  /** Writes `obj` as `<dir>/<name>.json` and returns the path (for `-f`). */
  readonly manifest: (name: string, obj: unknown) => string;
  /** Skips the calling test, with a printed reason, when kubectl is absent (fails it under `INTEROP_REQUIRED`). */
  readonly require: (ctx: { skip: (note?: string) => void }) => void;
}

/**
 * One server for the test file (or `describe` block) that calls this at its top level, started by `start` (default a
 * bare {@link startSim}) in `beforeAll` when kubectl runs here and closed in `afterAll`, with a fresh directory named
 * after `prefix`. kubectl reaches it by `--server` and `KUBECONFIG` pointing at a file that does not exist, so that
 * nothing of the user's own kubeconfig leaks in.
 */
export function useKubectlSim(prefix: string): KubectlSimFixture<SimHandle>;
export function useKubectlSim<S extends KubectlTarget>(prefix: string, start: () => Promise<S>): KubectlSimFixture<S>;
export function useKubectlSim(
  prefix: string,
  start: () => Promise<KubectlTarget> = startSim,
): KubectlSimFixture<KubectlTarget> {
  const check = checkKubectl();
  let sim: KubectlTarget | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    if (!check.ok) return;
    sim = await start();
    dir = freshDir(prefix);
  });
  afterAll(async () => {
    await sim?.close();
  });
  const running = () => {
    if (sim === undefined) throw new Error("useKubectlSim: the simulator is not running (kubectl absent?)");
    return sim;
  };
  const dirOf = () => {
    if (dir === undefined) throw new Error("useKubectlSim: no directory (kubectl absent?)");
    return dir;
  };
  const base = () => [`--server=${running().url}`, "--cache-dir", join(dirOf(), "cache")];
  const env = () => ({ KUBECONFIG: join(dirOf(), "no-kubeconfig") });
  return {
    check,
    sim: running,
    dir: dirOf,
    k: (args, opts = {}) =>
      run(kubectlBin(), [...base(), ...args], {
        env: { ...env(), ...opts.env },
        timeoutMs: opts.timeoutMs ?? 60_000,
        ...(opts.input !== undefined && { input: opts.input }),
      }),
    stream: (args) => spawnStreaming(kubectlBin(), [...base(), ...args], env()),
    manifest: (name, obj) => {
      const f = join(dirOf(), `${name}.json`);
      writeFileSync(f, JSON.stringify(obj));
      return f;
    },
    require: (ctx) => requireTool(check, ctx),
  };
}

/** `stages` with every delay, jitter and readiness-probe wait divided by `factor`: real time, so that a test takes seconds. */
export function fasterStages(factor: number, stages: readonly Stage[] = DEFAULT_POD_STAGES): Stage[] {
  return stages.map((s) => ({
    ...s,
    ...(s.delay !== undefined && {
      delay: {
        ...s.delay,
        durationMs: (s.delay.durationMs ?? 0) / factor,
        jitterMs: (s.delay.jitterMs ?? 0) / factor,
        ...(s.delay.readinessProbeScale !== undefined && { readinessProbeScale: s.delay.readinessProbeScale / factor }),
      },
    }),
  }));
}

export interface KubectlCluster {
  readonly sim: SimHandle;
  /** Runs kubectl against the simulator (a fresh cache dir each call); its stdout, or an error with its stderr. */
  kubectl(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the simulator and a 3-node cluster running against it: the e2e tests' stages (the defaults, a deleted pod
 * going soon after its `deletionTimestamp` is set as an nginx container ending on SIGTERM does, not at the end of
 * its grace period), 20× faster.
 */
export async function startKubectlCluster(): Promise<KubectlCluster> {
  const sim = await startSim();
  // No client-side rate limit (client-go's default 5 qps would pace every controller write).
  const client = new KubeClient({ server: sim.url, qps: -1 }, { quiet: true });
  const stop = new AbortController();
  const runtime = new SimClusterRuntime({
    client,
    clock: realClock,
    nodes: 3,
    stages: fasterStages(20, E2E_STAGES),
    logger: silentLogger,
  });
  const done = runtime.run(stop.signal);
  return {
    sim,
    async kubectl(...args) {
      const cache = freshDir("kcache");
      const r = await run(kubectlBin(), ["--kubeconfig", sim.kubeconfig, "--cache-dir", cache, ...args], {
        timeoutMs: 90_000,
      });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
    async close() {
      stop.abort();
      await done;
      await client.close();
      await sim.close();
    },
  };
}

/** What {@link useKubectlCluster} gives a test file. */
export interface KubectlClusterFixture {
  /** Whether kubectl runs here (why not, when it does not). */
  readonly check: ToolCheck;
  /** Runs kubectl against the file's cluster: its stdout, or an error with its stderr. */
  readonly k: (...args: string[]) => Promise<string>;
  /** The running cluster (only inside a test that called {@link KubectlClusterFixture.require}). */
  readonly cluster: () => KubectlCluster;
  /** Skips the calling test, with a printed reason, when kubectl is absent (fails it under `INTEROP_REQUIRED`). */
  readonly require: (ctx: { skip: (note?: string) => void }) => void;
}

/**
 * One cluster ({@link startKubectlCluster}) for the test file that calls this at its top level: started in
 * `beforeAll` when kubectl runs here, closed in `afterAll`.
 */
export function useKubectlCluster(): KubectlClusterFixture {
  const check = checkKubectl();
  let cluster: KubectlCluster | undefined;
  beforeAll(async () => {
    if (check.ok) cluster = await startKubectlCluster();
  });
  afterAll(async () => {
    await cluster?.close();
  });
  const running = () => {
    if (cluster === undefined) throw new Error("useKubectlCluster: the cluster is not running (kubectl absent?)");
    return cluster;
  };
  return {
    check,
    k: (...args) => running().kubectl(...args),
    cluster: running,
    require: (ctx) => requireTool(check, ctx),
  };
}
