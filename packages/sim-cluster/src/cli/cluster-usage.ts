// The `sim-cluster` command's help text. Imports nothing: the launcher compiles it on the fly to answer --help
// without a build.

/** The help text of `sim-cluster` (and of `pnpm apiserver --cluster`'s cluster flags). */
export const CLUSTER_USAGE = `sim-cluster: a Kubernetes cluster's moving parts against any apiserver, in real time — kwok-style nodes (Node objects,
Leases, heartbeats), the kubelet stand-in driven by stages, the scheduler and kube-controller-manager's controllers
(deployment, replicaset, replicationcontroller, endpoint, endpointslice, podgc, nodelifecycle, serviceaccount,
root-ca-cert-publisher, job, ttl-after-finished, cronjob, statefulset, daemonset, disruption), on the informer-ts controller
runtime.

usage: sim-cluster [--kubeconfig FILE] [--nodes N] [--stages FILE] [--controllers a,b] [--seed N] [--no-events]
       pnpm apiserver --cluster [--nodes N] [--stages FILE] [--controllers a,b] [apiserver flags…]

flags:
  --kubeconfig FILE     the apiserver to run against (default: $KUBECONFIG, then ~/.kube/config)
  --nodes N             simulated nodes to create (default 3)
  --stages FILE         pod stages as JSON or YAML (a list, or {stages: [...]}); default the built-in stages
  --controllers LIST    comma-separated: deployment, replicaset, replicationcontroller, endpoint,
                        endpointslice, podgc, nodelifecycle, serviceaccount, root-ca-cert-publisher,
                        job, ttl-after-finished, cronjob, statefulset, daemonset, disruption
                        (default all of them)
  --seed N              seed of stage jitter, failures and scheduling ties (default 1)
  --no-events           record no Events
  -h, --help            this text

It prints "cluster running: N nodes" on stdout once its caches synced, and stops on SIGINT/SIGTERM.
`;

/** The help text when `argv` asks for it, else undefined. */
export function clusterHelpFor(argv: readonly string[]): string | undefined {
  return argv.some((a) => a === "-h" || a === "--help" || a === "help") ? CLUSTER_USAGE : undefined;
}
