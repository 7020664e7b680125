// The help of the `informer` CLI. Imports nothing on purpose: the root launcher (scripts/launch.mjs) compiles this one
// file on the fly to answer `--help` before (and without) building the packages.

/** The commands of the `informer` CLI, for usage errors' "did you mean" suggestions. */
export const INFORMER_COMMANDS: readonly string[] = ["demo", "help"];

/** Usage of the `informer` CLI as a whole. */
export const INFORMER_USAGE = `Usage: informer <command> [flags]
       pnpm informer <command> [flags]     (pnpm demo = pnpm informer demo)
       node packages/scenarios/dist/cli.js <command> [flags]

Commands:
  demo        run a SharedIndexInformer against an embedded simulated kube-apiserver through churn and two
              server-side faults, check each fault's outcome and that the informer converges
  help [cmd]  show this help, or a command's

Flags:
  -h, --help  show help (informer <command> --help: that command's)

Environment: none is read.
Exit status: 0 success, 1 a check failed or the command failed, 2 bad command line, 130 interrupted (Ctrl-C).
`;

/** Usage of `informer demo`. */
export const DEMO_USAGE = `Usage: informer demo [flags]
       pnpm demo [flags]

Starts the simulated kube-apiserver on 127.0.0.1 (a random port) with --objects ConfigMaps, syncs a
SharedIndexInformer from it over HTTP, then writes --rate changes per second for --seconds seconds while two
faults hit the server:
  1. at 1/3: every watch connection is dropped; expected: a re-watch from the last resourceVersion, no relist
  2. at 2/3: the ConfigMap watch cache is re-initialized and unready for --downtime seconds; expected: 429s while
     unready, then 410 (Expired) for the old resourceVersion and exactly one relist
Each fault line is followed by what was observed, marked ✓ or ✗. Then a chart of the watch events the
informer received per second, the handler calls and the requests the apiserver saw, explained, and the
verdict: the informer's store must equal the apiserver's storage, key by key and resourceVersion by
resourceVersion.

The demo runs on the real clock over real sockets: --seed fixes the sequence of writes, not the timing, so the
counts (requests, handler calls) differ a little between runs; the checks do not depend on them.

Flags:
  --objects <n>       ConfigMaps on the server before the informer starts (default 2000)
  --seconds <s>       length of the churn (default 6)
  --rate <r>          changes per second during the churn (default 400)
  --seed <k>          seed of the writer's random choices (default 1)
  --sync-timeout <s>  seconds to wait for the initial sync before failing (default 60)
  --downtime <s>      seconds the re-initialized watch cache stays unready (default 1; with 0 there is no
                      429 to see, and that check fails)
  -h, --help          show this help

Environment: none is read.
Exit status: 0 every check passed, 1 a check failed (or the demo could not run), 2 bad command line,
130 interrupted (Ctrl-C stops the informer and the apiserver, then exits).
`;

/**
 * The text the `informer` CLI prints for a command line that asks for help (`help [command]`, or `-h`/`--help`
 * anywhere before `--`): the named command's usage, else the general usage. Undefined when it does not ask for help.
 */
export function helpFor(args: readonly string[]): string | undefined {
  const end = args.indexOf("--");
  const own = end < 0 ? args : args.slice(0, end);
  const asks = own[0] === "help" || own.some((a) => a === "-h" || a === "--help");
  if (!asks) return undefined;
  const command = own[0] === "help" ? own[1] : own[0];
  return command === "demo" ? DEMO_USAGE : INFORMER_USAGE;
}
