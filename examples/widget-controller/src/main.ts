// Runs the Widget controller; with --leader-elect, start two of these and only one reconciles at a time.
//   node dist/main.js [--kubeconfig path] [--server url] [--leader-elect] [--identity id]
//                     [--health-probe-bind-address :8082] (--help lists every flag)
import { hostname } from "node:os";
import {
  FlagError,
  LeaderElectionLostError,
  managerFlagsUsage,
  newManager,
  parseManagerFlags,
} from "@informer-ts/controller";
import { setupWidgetController } from "./widget-controller.js";

const USAGE = `Usage: node dist/main.js [flags]
${managerFlagsUsage}  --server <url>                      talk to this URL without a kubeconfig (e.g. http://127.0.0.1:8080)
  --identity <id>                     this replica's leader-election identity (default <hostname>_<pid>)
  -h, --help                          show this help
The Lease is widget-controller in kube-system unless --leader-election-id/--leader-election-namespace say otherwise.
`;
const extraFlags = {
  server: { type: "string" },
  identity: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

try {
  const { extra } = parseManagerFlags(process.argv, extraFlags);
  if (extra.help === true) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const identity = typeof extra.identity === "string" ? extra.identity : `${hostname()}_${process.pid}`;
  const { manager, client } = await newManager({
    flags: process.argv,
    extraFlags,
    // --server is for the local simulated apiserver: no client-side limit there (client-go's 5 qps would set the pace).
    // Through a kubeconfig the client keeps client-go's 5 qps / 10 burst unless --kube-api-qps/--kube-api-burst.
    ...(typeof extra.server === "string" && { clientConfig: { server: extra.server, qps: -1 } }),
    leaderElectionID: "widget-controller",
    leaderElection: { namespace: "kube-system", identity, releaseOnCancel: true },
  });
  setupWidgetController(manager, client);
  await manager.run(new AbortController().signal); // logs election transitions and errors; SIGTERM hands over
} catch (err) {
  process.stderr.write(`widget-controller: ${err instanceof Error ? err.message : String(err)}\n`);
  if (err instanceof FlagError) process.stderr.write(USAGE);
  process.exitCode = err instanceof FlagError || err instanceof LeaderElectionLostError ? 2 : 1;
}
