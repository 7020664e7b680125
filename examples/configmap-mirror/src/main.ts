// Runs the ConfigMap mirror against the cluster of a kubeconfig (or `--server http://127.0.0.1:8080` for the simulated
// apiserver started with `pnpm apiserver`), with /healthz, /readyz and /metrics on 127.0.0.1:8081.
//   node dist/main.js [--kubeconfig path] [--server url] [--namespace ns] [--probe-port 8081] (--help lists them)
import { parseArgs } from "node:util";
import { KubeClient, listWatchFor, loadClientConfig } from "@informer-ts/client";
import { Manager } from "@informer-ts/controller";
import { setupMirrorController } from "./mirror-controller.js";

const USAGE = `Usage: node dist/main.js [--kubeconfig <file>] [--server <url>] [--namespace <ns>] [--probe-port <p>]
  --kubeconfig <file>  kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)
  --server <url>       talk to this URL without a kubeconfig (e.g. http://127.0.0.1:8080 from pnpm apiserver --port 8080)
  --namespace <ns>     watch one namespace (default: every namespace)
  --probe-port <p>     /healthz, /readyz and /metrics on 127.0.0.1:<p> (default 8081)
  -h, --help           show this help
`;

/** The command line, or exit 2 naming what is wrong with it (never a stack trace). */
function parseCommandLine() {
  try {
    const { values } = parseArgs({
      options: {
        kubeconfig: { type: "string" },
        server: { type: "string" },
        namespace: { type: "string" },
        "probe-port": { type: "string", default: "8081" },
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
    process.stderr.write(`configmap-mirror: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
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
            `configmap-mirror: ${err instanceof Error ? err.message : String(err)} (or pass --server <url>)\n`,
          );
          process.exit(1);
        },
      );
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
