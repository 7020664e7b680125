// Runs the Widget controller with leader election: start two of these and only one reconciles at a time.
//   node dist/main.js [--kubeconfig path] [--server url] [--identity id] [--no-leader-elect] [--probe-port 8082]
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { KubeClient, listWatchFor, loadClientConfig } from "@informer-ts/client";
import { LeaderElectionLostError, Manager } from "@informer-ts/controller";
import { setupWidgetController } from "./widget-controller.js";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    server: { type: "string" },
    identity: { type: "string", default: `${hostname()}_${process.pid}` },
    "no-leader-elect": { type: "boolean", default: false },
    "lease-namespace": { type: "string", default: "kube-system" },
    "probe-port": { type: "string", default: "8082" },
  },
});

const config =
  values.server !== undefined
    ? { server: values.server }
    : await loadClientConfig(values.kubeconfig !== undefined ? { kubeconfigPath: values.kubeconfig } : {});
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
