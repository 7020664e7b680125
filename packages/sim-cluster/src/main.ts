#!/usr/bin/env node
// `sim-cluster`: the cluster's moving parts against any apiserver, in real time (see cli/cluster-usage.ts).
import { KubeClient, loadClientConfig } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";
import { newConsoleLogger } from "@informer-ts/instrumentation";
import { loadStagesFile, parseClusterFlags } from "./cli/cluster-flags.js";
import { clusterHelpFor } from "./cli/cluster-usage.js";
import { SimClusterRuntime } from "./cluster.js";

async function main(argv: readonly string[]): Promise<number> {
  const help = clusterHelpFor(argv);
  if (help !== undefined) {
    process.stdout.write(help);
    return 0;
  }
  let flags: ReturnType<typeof parseClusterFlags>;
  let stages: ReturnType<typeof loadStagesFile> | undefined;
  try {
    flags = parseClusterFlags(argv);
    if (flags.stagesFile !== undefined) stages = loadStagesFile(flags.stagesFile);
  } catch (err) {
    process.stderr.write(
      `sim-cluster: ${err instanceof Error ? err.message : String(err)}\n(sim-cluster --help lists the flags)\n`,
    );
    return 2;
  }
  const loaded = await loadClientConfig(flags.kubeconfig === undefined ? {} : { kubeconfigPath: flags.kubeconfig });
  // A cluster's components each have their own client with a high QPS; one shared client, unthrottled, stands in.
  const client = new KubeClient({ ...loaded, qps: -1 });
  const runtime = new SimClusterRuntime({
    client,
    clock: realClock,
    nodes: flags.nodes,
    controllers: flags.controllers,
    seed: flags.seed,
    events: flags.events,
    logger: newConsoleLogger("sim-cluster", "info"),
    // The root CA the kubeconfig trusts is the one pods would be given.
    ...(loaded.ca !== undefined && {
      rootCA: typeof loaded.ca === "string" ? loaded.ca : Buffer.from(loaded.ca).toString("utf8"),
    }),
    ...(stages !== undefined && { stages }),
  });
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const sub = runtime.manager.events$.subscribe((e) => {
    if (e.type === "cachesSynced") process.stdout.write(`cluster running: ${flags.nodes} nodes\n`);
  });
  try {
    await runtime.run(stop.signal);
  } finally {
    sub.unsubscribe();
    await client.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`sim-cluster: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
