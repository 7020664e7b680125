// Runs the ConfigMap mirror against the cluster of a kubeconfig (or `--server http://127.0.0.1:8080` for the simulated
// apiserver started with `pnpm apiserver`), with /healthz, /readyz and /metrics on 127.0.0.1:8081.
//   node dist/main.js [--kubeconfig path] [--server url] [--namespace ns] [--probe-port 8081]
import { parseArgs } from "node:util";
import { KubeClient, listWatchFor, loadClientConfig } from "@informer-ts/client";
import { Manager } from "@informer-ts/controller";
import { setupMirrorController } from "./mirror-controller.js";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    server: { type: "string" },
    namespace: { type: "string" },
    "probe-port": { type: "string", default: "8081" },
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
  ...(values.namespace !== undefined && { namespace: values.namespace }),
  probe: { port: Number(values["probe-port"]) },
  handleSignals: true,
});
setupMirrorController(mgr, client);
mgr.events$.subscribe((e) => {
  if (e.type === "probeListening") console.log(`probes on ${e.url}`);
  if (e.type === "controllersStarted") console.log(`running ${e.names.join(", ")}`);
  if (e.type === "error") console.error(`${e.source}: ${String(e.error)}`);
});
try {
  await mgr.run(new AbortController().signal);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await client.close();
}
