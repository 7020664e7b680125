// Runs the Widget controller with leader election: start two of these and only one reconciles at a time.
//   node dist/main.js [--kubeconfig path] [--server url] [--identity id] [--no-leader-elect] [--probe-port 8082]
//   (--help lists them)
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { KubeClient, listWatchFor, loadClientConfig } from "@informer-ts/client";
import { LeaderElectionLostError, Manager } from "@informer-ts/controller";
import { setupWidgetController } from "./widget-controller.js";

const USAGE = `Usage: node dist/main.js [--kubeconfig <file>] [--server <url>] [--identity <id>] [--no-leader-elect]
                         [--lease-namespace <ns>] [--probe-port <p>]
  --kubeconfig <file>      kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)
  --server <url>           talk to this URL without a kubeconfig (e.g. http://127.0.0.1:8080)
  --identity <id>          this replica's leader-election identity (default <hostname>_<pid>)
  --no-leader-elect        reconcile at once, without the Lease
  --lease-namespace <ns>   namespace of the Lease widget-controller (default kube-system)
  --probe-port <p>         /healthz, /readyz and /metrics on 127.0.0.1:<p> (default 8082)
  -h, --help               show this help
`;

/** The command line, or exit 2 naming what is wrong with it (never a stack trace). */
function parseCommandLine() {
  try {
    const { values } = parseArgs({
      options: {
        kubeconfig: { type: "string" },
        server: { type: "string" },
        identity: { type: "string", default: `${hostname()}_${process.pid}` },
        "no-leader-elect": { type: "boolean", default: false },
        "lease-namespace": { type: "string", default: "kube-system" },
        "probe-port": { type: "string", default: "8082" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    const port = values["probe-port"];
    if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`--probe-port: not a port number: "${port}"`);
    return values;
  } catch (err) {
    process.stderr.write(`widget-controller: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

const values = parseCommandLine();

const config =
  values.server !== undefined
    ? { server: values.server }
    : await loadClientConfig(values.kubeconfig !== undefined ? { kubeconfigPath: values.kubeconfig } : {}).catch(
        (err: unknown) => {
          // No kubeconfig, or an unreadable one: say which, without a stack trace.
          process.stderr.write(
            `widget-controller: ${err instanceof Error ? err.message : String(err)} (or pass --server <url>)\n`,
          );
          process.exit(1);
        },
      );
const client = new KubeClient(config);
const mgr = new Manager({
  listerWatcherFor: (r, { namespace }) => listWatchFor(client, r, { namespace }),
  client,
  probe: { port: Number(values["probe-port"]) },
  handleSignals: true,
  ...(!values["no-leader-elect"] && {
    leaderElection: {
      namespace: values["lease-namespace"],
      name: "widget-controller",
      identity: values.identity,
      releaseOnCancel: true,
    },
  }),
});
setupWidgetController(mgr, client);
mgr.events$.subscribe((e) => {
  if (e.type === "startedLeading") console.log(`${values.identity}: leading`);
  if (e.type === "error") console.error(`${e.source}: ${String(e.error)}`);
});
mgr.elector?.events$.subscribe((e) => {
  if (e.type === "newLeader") console.log(`${values.identity}: leader is ${e.identity}`);
});
try {
  await mgr.run(new AbortController().signal);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = err instanceof LeaderElectionLostError ? 2 : 1;
} finally {
  await client.close();
}
