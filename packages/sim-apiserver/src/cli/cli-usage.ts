// The help of `pnpm apiserver`. Imports nothing on purpose: the root launcher (scripts/launch.mjs) compiles this one
// file on the fly to answer `--help` before (and without) building the packages.

/** Usage text of the `apiserver` command: flags, what it prints, how to get a kubeconfig, exit statuses. */
export const USAGE = `Usage: pnpm apiserver [flags]                       (in the informer-ts repository)
       node packages/sim-apiserver/dist/main.js [flags]
       sim-apiserver [flags]                        (the command of the installed @informer-ts/sim-apiserver)

Starts the simulated kube-apiserver in the foreground. When it is ready it prints one line on stdout,
"listening on <url>", then hints on stderr: where the kubeconfig was written (--kubeconfig-out), or that
none was and the kubectl command line that reaches the server without one. Ctrl-C (SIGINT) or SIGTERM
stops it.

Flags:
  --port <p>                 port to listen on (default 0 = any free port; the URL printed says which)
  --host <addr>              address to bind (default 127.0.0.1)
  --seed <file>              load objects from a JSON or YAML file (a List, an array, or multi-doc YAML);
                             CustomResourceDefinitions in it register their custom resources
  --tls                      serve HTTPS with a freshly generated CA and serving certificate
  --token <t>                require "Authorization: Bearer <t>" (repeatable); <t>,<user>[,<uid>[,<group>,...]]
                             authenticates <t> as that user in those groups (default user sim-token-user)
  --authorization-mode <m>   AlwaysAllow (default) or RBAC: enforce Roles/ClusterRoles and their bindings
  --service-account-signing-key-file <f>
                             PEM RSA private key to sign service-account tokens with (default: a generated one)
  --client-cert-auth         accept client certificates signed by the generated CA (with --tls)
  --kubeconfig-out <file>    write a kubeconfig for this server (URL, CA, first token or client certificate);
                             without it no kubeconfig is written
  --kube-version <v>         reproduce how kube-apiserver <v> routes reads between the watch cache and etcd,
                             with that release's default feature gates: 1.22, 1.28, 1.31, 1.33 or 1.34
                             (default 1.34; e.g. 1.22 sends RV-unset lists and paged lists with an RV to etcd)
  --no-watch-list            emulate a server with the WatchList feature gate off (sendInitialEvents -> 422)
  --min-request-timeout <s>  default watch timeout is random in [s, 2s) (default 1800)
  --rand-seed <n>            seed for the server's random choices (watch timeouts, jitter)
  --fault <json>             inject a fault at start (repeatable; see docs/sim-apiserver-http.md), e.g.
                             '{"type":"apf-429","every":3}', '{"type":"status","code":500}',
                             '{"type":"truncate-watch","afterEvents":2}', '{"type":"drop-connection"}',
                             '{"type":"latency","ms":200}', '{"type":"bookmarks","mode":"off"}',
                             '{"type":"stall-watchers","userAgent":"slow","future":true}'
  --http-log                 write one httplog-style JSON line per request to stderr
  --audit-log <file>         append one audit-style JSON line per request to <file> ("-" = stderr)
  --cost-model               model each request's cost: virtual latency by its path (etcd or watch cache,
                             encoding), apiserver CPU and APF seats in the accounting and audit lines
  --trace-log <ms>           log kube-apiserver-style Trace[...] lines of requests that took at least <ms>
                             (kube-apiserver uses 500) on stderr
  -h, --help                 show this help

Examples:
  pnpm apiserver --port 0 --kubeconfig-out /tmp/sim.kubeconfig
  kubectl --kubeconfig /tmp/sim.kubeconfig get namespaces

Environment: none is read (KUBECONFIG included: the server writes a kubeconfig, it never reads one).
Exit status: 0 after SIGINT/SIGTERM, 2 for a bad command line or seed file, 1 when it cannot listen.
`;

/**
 * The text `pnpm apiserver` prints for a command line that asks for help (`-h` or `--help` anywhere before `--`),
 * or undefined when the command line does not ask for it.
 */
export function helpFor(args: readonly string[]): string | undefined {
  for (const a of args) {
    if (a === "--") return undefined;
    if (a === "-h" || a === "--help") return USAGE;
  }
  return undefined;
}
