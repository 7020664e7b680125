// The simulator with a cluster inside it (sim-cluster over HTTP, in real time) and a kubectl pointed at it: what the
// kubectl transcript tests share.
import { KubeClient } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { DEFAULT_POD_STAGES, SimClusterRuntime, type Stage } from "@informer-ts/sim-cluster";
import { afterAll, beforeAll } from "vitest";
import { run } from "./run.js";
import { type SimHandle, startSim } from "./sim.js";
import { checkKubectl, freshDir, kubectlBin, requireTool, type ToolCheck } from "./tools.js";

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

/** Starts the simulator and a 3-node cluster (the default stages 20× faster) running against it. */
export async function startKubectlCluster(): Promise<KubectlCluster> {
  const sim = await startSim();
  // No client-side rate limit (client-go's default 5 qps would pace every controller write).
  const client = new KubeClient({ server: sim.url, qps: -1 }, { quiet: true });
  const stop = new AbortController();
  const runtime = new SimClusterRuntime({
    client,
    clock: realClock,
    nodes: 3,
    stages: fasterStages(20),
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
