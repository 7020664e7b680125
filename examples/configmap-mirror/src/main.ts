// Runs the ConfigMap mirror against the cluster of a kubeconfig (or `--server http://127.0.0.1:8080` for the simulated
// apiserver started with `pnpm apiserver`), with /healthz, /readyz and /metrics on :8081 (kubebuilder's flags).
//   node dist/main.js [--kubeconfig path] [--server url] [--namespace ns] [--health-probe-bind-address :8081] (--help)
import { FlagError, managerFlagsUsage, newManager, parseManagerFlags } from "@informer-ts/controller";
import { setupMirrorController } from "./mirror-controller.js";

const USAGE = `Usage: node dist/main.js [flags]
${managerFlagsUsage}  --server <url>                      talk to this URL without a kubeconfig (e.g. http://127.0.0.1:8080)
  --namespace <ns>                    watch one namespace (default: every namespace)
  -h, --help                          show this help
`;
const extraFlags = {
  server: { type: "string" },
  namespace: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

try {
  const { extra } = parseManagerFlags(process.argv, extraFlags);
  if (extra.help === true) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const { manager, client } = await newManager({
    flags: process.argv,
    extraFlags,
    // --server is for the local simulated apiserver: no client-side limit there (client-go's 5 qps would set the pace).
    // Through a kubeconfig the client keeps client-go's 5 qps / 10 burst unless --kube-api-qps/--kube-api-burst.
    ...(typeof extra.server === "string" && { clientConfig: { server: extra.server, qps: -1 } }),
    ...(typeof extra.namespace === "string" && { namespace: extra.namespace }),
  });
  setupMirrorController(manager, client);
  await manager.run(new AbortController().signal); // logs its own errors; SIGTERM stops it gracefully
} catch (err) {
  // A bad flag (exit 2, with the usage), no kubeconfig, or a failed run (exit 1): one line, never a stack trace.
  process.stderr.write(`configmap-mirror: ${err instanceof Error ? err.message : String(err)}\n`);
  if (err instanceof FlagError) process.stderr.write(USAGE);
  process.exitCode = err instanceof FlagError ? 2 : 1;
}
