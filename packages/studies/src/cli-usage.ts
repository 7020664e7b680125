// The help of the `informer` CLI. Imports nothing on purpose: the root launcher (scripts/launch.mjs) compiles this one
// file on the fly to answer `--help` before (and without) building the packages.

/** The commands of the `informer` CLI, for usage errors' "did you mean" suggestions. */
export const INFORMER_COMMANDS: readonly string[] = ["demo", "study", "scenario", "analyze-logs", "help"];

/** The studies `informer study <name>` runs. */
export const STUDY_NAMES: readonly string[] = [
  "statefulset-resync",
  "watch-rv0-churn",
  "list-memory",
  "kubelet-configmap",
  "apiserver-load",
];

/** Usage of the `informer` CLI as a whole. */
export const INFORMER_USAGE = `Usage: informer <command> [flags]
       pnpm informer <command> [flags]     (pnpm demo = pnpm informer demo)
       node packages/studies/dist/cli.js <command> [flags]

Commands:
  demo        run a SharedIndexInformer against an embedded simulated kube-apiserver through churn and two
              server-side faults, check each fault's outcome and that the informer converges
  study       run a study of a production problem in virtual time (informer study --help lists them)
  scenario    the same as study (its former name)
  analyze-logs <file…>
              attribute kube-apiserver load from its httplog, audit and trace lines (by user agent, verb,
              resource, served-from) and list the slow requests with their steps
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
  // `help <unknown>` is not answered with the general help: the CLI reports the unknown command (exit 2).
  if (own[0] === "help" && command !== undefined && !INFORMER_COMMANDS.includes(command)) return undefined;
  if (command === "study" || command === "scenario") {
    const name = own[0] === "help" ? own[2] : own[1];
    return (name !== undefined ? STUDY_USAGES[name] : undefined) ?? STUDY_USAGE;
  }
  if (command === "analyze-logs") return ANALYZE_LOGS_USAGE;
  return command === "demo" ? DEMO_USAGE : INFORMER_USAGE;
}

/** Usage of `informer study`. */
export const STUDY_USAGE = `Usage: informer study <name> [flags]
       pnpm informer study <name> [flags]

Runs a study of a production problem (shared/background) in virtual time against the in-process simulated
kube-apiserver, and prints a summary table with the write-up's figures beside the measured ones.

Studies:
  statefulset-resync  a 30 s resync keeps the StatefulSet controller's queue full; new StatefulSets wait (003)
  apiserver-load      who loads the apiserver and which reads reach etcd, per --kube-version (004)
  watch-rv0-churn     an RV "0" watch never finishes its initial sync under churn; list-then-watch does (002)
  list-memory         peak and retained heap of the initial sync; can a stored item pin its list? (002)
  kubelet-configmap   kubelets' ConfigMap reads: a GET to etcd per pod sync (Get, Cache) or a watch per ConfigMap
                      and the apiserver memory it holds (Watch), immutable ConfigMaps (000, 001)

Flags of every study:
  --seed <k>            seed of every random choice; the run is deterministic for it (default 1)
  --json <file>         write the full result (parameters, time series, histograms, summary) as JSON
  --report <file.html>  write an HTML report with inline SVG charts (no network)
  --heap                sample process.memoryUsage().heapUsed too (real memory: not deterministic)
  --real-time           run on the real clock over real HTTP where the study supports it (watch-rv0-churn,
                        statefulset-resync); durations are then real seconds and the run is not deterministic
  -h, --help            show the study's flags (informer study <name> --help)

Exit status: 0 the study ran, 1 it failed (the message says why), 2 bad command line.
`;

/** Usage of `informer study statefulset-resync`. */
export const STATEFULSET_RESYNC_USAGE = `Usage: informer study statefulset-resync [flags]

Study 003 (shared/background/003): StatefulSets wait minutes for their pods although each sync takes 40 ms.
Model: --statefulsets StatefulSets in the simulated apiserver; a shared informer whose handler enqueues every
add/update/delete and every resync (the StatefulSet controller's handler, resync --resync s); a rate-limited
workqueue; workers paying --cost-ms virtual ms per key. New StatefulSets ("probes", --replicas each) are created
mid-run; the controller's pod creation is modelled in the study: with OrderedReady one pod per sync, the next once
the last is Ready (--pod-ready s), each pod event enqueueing the key behind the backlog. Measured: each probe's
wait to its first sync (first pod) and until all its pods exist. Variants (--variants, default all):
  resync             resync --resync s, 1 worker: the problem (the write-up's demo)
  no-resync          no resync, 1 worker: the write-up's first fix
  skip-processed-rv  resync, but a key whose resourceVersion was already processed is skipped: the second fix
  workers            resync with --workers workers (kube-controller-manager's --concurrent-statefulset-syncs)

Flags (defaults are the write-up's values):
  --statefulsets <n>      StatefulSets in the cluster (default 2000)
  --cost-ms <ms>          virtual processing cost per key (default 40)
  --cost-spread-ms <ms>   uniform spread ± around --cost-ms, drawn from --seed (default 0)
  --resync <s>            resync period of the handler (default 30)
  --workers <n>           workers of the "workers" variant (default 5)
  --duration <s>          virtual length of each variant (default 600)
  --probes <n>            StatefulSets created mid-run (default 5)
  --replicas <n>          replicas of each probe (default 3; the write-up does not say)
  --pod-ready <s>         virtual seconds from a pod's creation to Ready (default 10)
  --pod-management-policy OrderedReady (default: one pod per sync) or Parallel (all in one sync)
  --probe-start <s>       virtual time of the first probe (default 120)
  --probe-interval <s>    virtual seconds between probes (default 25)
  --sample <s>            sampling period (default 1)
  --variants <list>       comma-separated subset of: resync,no-resync,skip-processed-rv,workers
  --real-time             the same informer over real HTTP on the real clock: seconds and ms are real, so scale
                          down (e.g. --statefulsets 200 --resync 3 --duration 30 --probe-start 12
                          --probe-interval 3)
  --seed <k>              (default 1)   --json <file>   --report <file.html>   --heap
  -h, --help              show this help

Exit status: 0 the study ran, 1 it failed, 2 bad command line.
`;

/** Usage of `informer study apiserver-load`. */
export const APISERVER_LOAD_USAGE = `Usage: informer study apiserver-load [flags]

Study 004 (shared/background/004): which requests kube-apiserver answers from its watch cache and which reach etcd,
per Kubernetes version, and who sends them. For each --kube-version a fresh simulated apiserver routes reads as that
release did; --pods pods (labelled app=app-<n> among --apps) in --namespaces namespaces, --nodes Nodes with
--configmaps-per-node ConfigMaps each, and for --duration virtual seconds a mixed workload:
  informers    --informers pod informers, each restarted every --restart-interval s (staggered): a full relist
               (RV "0", limit 500; with --watch-list a streaming watch-list, refused by releases without it)
  kubectl      kubectl get pods -A -l app=<random> (limit 500, RV unset, every page) every --kubectl-interval s
  RV-less      a full pod list without resourceVersion (List(ListOptions{})) every --plain-list-interval s
  kubelets     every --kubelet-interval s each node GETs its Node (RV "0") and its ConfigMaps (the first GET
               without RV, then RV "0": the kubelet's cache-based manager)
  writes       --writes-per-sec pod annotation patches
Requests are attributed by client and served-from, with the apiserver CPU and APF seats of the simulator's cost
model (its accounting). Then every request shape of the
write-up's routing rules is sent once to each version 1.22, 1.28, 1.31, 1.33, 1.34: the routing table, beside
the write-up's rule. --log <file> writes the simulator's audit lines and klog log with its traces (one file per version: load.log →
load-1.22.log, load-1.34.log when several) for informer analyze-logs.

Flags:
  --kube-version <list>       versions to run the workload on: 1.22,1.28,1.31,1.33,1.34 (default 1.22,1.34)
  --pods <n>                  pods (default 5000)
  --namespaces <n>            namespaces (default 50)
  --apps <n>                  distinct app labels (default 10)
  --informers <n>             pod informers (default 4)
  --restart-interval <s>      each informer restarts this often, 0 never (default 60)
  --watch-list                informers start with a streaming watch-list (client-go >= 1.35) (default off)
  --kubectl-interval <s>      kubectl get -l period, 0 off (default 10)
  --plain-list-interval <s>   RV-less list period, 0 off (default 30)
  --nodes <n>                 kubelets (default 100)
  --kubelet-interval <s>      each kubelet's GET period, 0 off (default 10)
  --configmaps-per-node <n>   ConfigMaps each kubelet GETs (default 2)
  --writes-per-sec <r>        pod writes per second (default 20)
  --duration <s>              virtual length of each version's run (default 300)
  --sample <s>                sampling period (default 5)
  --log <file>                write its audit lines and klog-format log (see above)
  --seed <k>                  (default 1)   --json <file>   --report <file.html>   --heap
  -h, --help                  show this help

Exit status: 0 the study ran, 1 it failed, 2 bad command line.
`;

/** Usage of `informer study watch-rv0-churn`. */
export const WATCH_RV0_CHURN_USAGE = `Usage: informer study watch-rv0-churn [flags]

Study 002 (shared/background/002, third part): an informer whose initial state comes from an RV "0" watch is
closed by the watch cache's dispatch budget (100 ms, +50 ms/s) before its initial events end whenever the cluster
writes faster than its watch channel absorbs while the client reads them; it restarts from RV "0" and never syncs.
Model: --objects pods in the simulated apiserver (created long ago: their events are out of the watch cache's
history), --writes updates per second (80 s of churn before the informer starts, then throughout), and a
SharedIndexInformer ingesting --consumer objects per second (list items and watch events alike: the per-event cost
of its read path). Approaches (--approaches, default all):
  rv0-watch   an empty LIST at RV "0" then a watch from RV "0": the write-up's idea (server without WatchList)
  list-watch  client-go's LIST at RV "0", then a watch from the list's resourceVersion
  watch-list  a streaming watch-list (sendInitialEvents=true; WatchList on)
Each approach runs once at the flags' values for --duration virtual s (sampled), then the sweep runs every approach
at every --sweep-objects × --sweep-writes × --sweep-consumer until it syncs or --duration ends, giving the frontier:
the highest write rate at which each approach still syncs.

Flags (rates default to the write-up's values):
  --objects <n>              pods in the cluster (default 10000)
  --writes <r>               updates per second (default 50; the write-up's clusters: 50 and 500)
  --consumer <r>             objects per second the informer ingests (default 1200: the write-up's empty watch)
  --duration <s>             virtual length of each run (default 30)
  --warmup <s>               churn before the informer starts (default 80: the cache's 75 s history window)
  --sample <s>               sampling period of the detailed runs (default 0.5)
  --approaches <list>        comma-separated subset of: rv0-watch,list-watch,watch-list
  --sweep-objects <list>     objects of the sweep (default 2000,10000)
  --sweep-writes <list>      writes per second of the sweep (default 10,50,200,500)
  --sweep-consumer <list>    consumer rates of the sweep (default 1200)
  --no-sweep                 skip the sweep
  --real-time                the same over real HTTP on the real clock (seconds are real; try --no-sweep,
                             a few thousand objects and --warmup 5)
  --seed <k>                 (default 1)   --json <file>   --report <file.html>   --heap
  -h, --help                 show this help

Exit status: 0 the study ran, 1 it failed, 2 bad command line.
`;

/** Usage of `informer study list-memory`. */
export const LIST_MEMORY_USAGE = `Usage: informer study list-memory [flags]

Study 002 (shared/background/002, first two parts): the heap an informer's initial sync needs at its peak and
keeps afterwards, and whether a stored item can keep its LIST response alive (in Go it does: an item pointer pins
the list's backing array, kubernetes#111370, so client-go shallow-copies every item). The simulated apiserver
serves --objects ConfigMaps (~1 KiB) over real HTTP from this process; each variant's sync runs in its own child
process (node --expose-gc): an informer over HTTP reporting the peak heap (sampled every 2 ms), the live heap
with a response decoded (after a forced GC), the heap retained after full GCs, Buffers retained, list responses
still reachable (WeakRefs) and the sliced strings of a heap snapshot (a V8 sliced string pins its parent).
Real memory: figures vary between runs; each is the lowest of --repeats rounds (--seed only fixes the contents).
Variants (--variants, default all):
  list-rv0        LIST at RV "0" (whole, from the watch cache); the store takes the decoded items (the default)
  list-rv0-copy   the same with the reflector's shallow copy of each item (copyListItems: client-go's behaviour)
  list-paginated  LIST in pages of --page-size from a consistent read (RV "": the cache answers RV "0" whole)
  watch-list      streaming watch-list (sendInitialEvents=true)

Flags:
  --objects <n>     ConfigMaps on the server (default 20000)
  --page-size <n>   page size of list-paginated (default 500)
  --repeats <n>     rounds (default 2)
  --variants <list> comma-separated subset of: list-rv0,list-rv0-copy,list-paginated,watch-list
  --no-snapshot     skip the heap snapshot search for sliced strings (seconds per child)
  --seed <k>        (default 1)   --json <file>   --report <file.html>
  -h, --help        show this help

Needs the built package (the child is dist/studies/list-memory/list-memory-child.js: pnpm run build).
Exit status: 0 the study ran, 1 it failed, 2 bad command line.
`;

/** Usage of `informer study kubelet-configmap`. */
export const KUBELET_CONFIGMAP_USAGE = `Usage: informer study kubelet-configmap [flags]

Studies 000 and 001 (shared/background): kubelets reading the ConfigMaps their pods mount. Model: --nodes simulated
kubelets, each with --pods-per-node pods mounting --configmaps-per-pod ConfigMaps of their own; pod workers sync each
pod every --sync-frequency s plus up to 50% jitter (and on pod updates); every sync registers the pod with the
ConfigMap manager and has the volume manager's 100 ms loops remount its ConfigMap volumes, each remount reading the
ConfigMap through the manager. The Cache TTL is the node TTL controller's for --cluster-size nodes. Pods start over
the first 1.5 sync periods; rates are measured after that. Variants (--variants, default all):
  get              configMapAndSecretChangeDetectionStrategy Get: a GET (from etcd) per remount
  cache            Cache, kubelet --kubelet-version: in 1.22–1.28 every pod sync registers and invalidates, so a GET
                   from etcd per remount (000); before 1.22 only a pod add/update does, the TTL decides the rest
  cache-1.29       Cache, kubelet 1.29+ (kubernetes#120255): refreshes from the watch cache when the TTL has run out
  watch            Watch: one LIST + WATCH (fieldSelector metadata.name) per ConfigMap per node, nothing per remount
  watch-immutable  Watch with --immutable-fraction of the ConfigMaps immutable: their watch stops after the first read
Reported per variant: GETs/s by where the apiserver served them, open watches, watch (re-)opens/s, kube-apiserver
memory held by the watches (the simulator's watch memory model), the interval between two GETs of one ConfigMap,
and the apiserver CPU of the simulator's cost model (by request kind, during the warm-up and after it; its latency is
recorded, not waited, so the kubelets' timing is the model-free one) beside 000's logged GET latency.
The summary extrapolates per-node figures to --cluster-size nodes (the write-ups' 2,000 nodes × 100 ConfigMaps).
Write-up scale in full: --nodes 2000 (the cost is linear in --nodes: --nodes 100 takes ~11 s of CPU and 430 MB).

Flags (defaults are the write-ups' values, except --nodes):
  --nodes <n>                  kubelets simulated (default 10)
  --pods-per-node <n>          pods per node (default 50)
  --configmaps-per-pod <n>     ConfigMap volumes per pod (default 2: 001's 100 ConfigMaps per node)
  --cluster-size <n>           nodes in the cluster, for the TTL controller's table and the extrapolation (default 2000)
  --kubelet-version <v>        kubelet of get, cache and watch* (default 1.28; 000 tested 1.22 and 1.28), modelled
                               per release: before 1.22 a resync does not register the pod (kubernetes#107821,
                               backports #108754/#108756); from 1.29 registration does not invalidate (#120255);
                               before 1.19 immutable ConfigMaps keep their watch (ImmutableEphemeralVolumes)
  --ttl <s>                    set every Node's node.alpha.kubernetes.io/ttl to s, TTL controller off (001's
                               mitigation: --ttl 86400000, 1000 days); default the TTL controller's for --cluster-size
  --immutable-gate on|off      --feature-gates=ImmutableEphemeralVolumes of the kubelets (on early in 1.18, off in
                               1.19–1.20); default the release's
  --sync-frequency <s>         kubelet --sync-frequency (default 60)
  --immutable-fraction <f>     share of immutable ConfigMaps in watch-immutable, 0–1 (default 1)
  --pod-updates-per-hour <r>   updates per pod per hour, each re-syncing the pod at once (default 0)
  --duration <s>               virtual length of each variant (default 1200)
  --sample <s>                 sampling period (default 10)
  --variants <list>            comma-separated subset of: get,cache,cache-1.29,watch,watch-immutable
  --seed <k>                   (default 1)   --json <file>   --report <file.html>   --heap
  -h, --help                   show this help

Exit status: 0 the study ran, 1 it failed, 2 bad command line.
`;

/** Each study's usage, by name; every name of {@link STUDY_NAMES} has one. */
export const STUDY_USAGES: Readonly<Record<string, string>> = {
  "statefulset-resync": STATEFULSET_RESYNC_USAGE,
  "apiserver-load": APISERVER_LOAD_USAGE,
  "watch-rv0-churn": WATCH_RV0_CHURN_USAGE,
  "list-memory": LIST_MEMORY_USAGE,
  "kubelet-configmap": KUBELET_CONFIGMAP_USAGE,
};

/** Usage of `informer analyze-logs`. */
export const ANALYZE_LOGS_USAGE = `Usage: informer analyze-logs [flags] <file…>
       pnpm informer analyze-logs [flags] <file…>      (- reads standard input)

Reads kube-apiserver logs of 1.18 to 1.34 and attributes the load they show: requests by user agent, verb,
resource, served-from, read shape (list RV="0" limit, get RV="", …) × served-from, API Priority and Fairness
level × flow schema (seats, execution time), the top user agent × verb × resource combinations, requests over
time, and how often one client re-requests the same object; then the slow requests: Trace[…] blocks with their
steps (linked to their request by audit ID), and the slowest requests by logged latency (watches excluded).

Served-from is what a record says (the simulator's audit annotations), else what the read's trace says (an etcd3
or cacher step; a top-level "List etcd3" trace is a storage read), else inferred from the read's shape and
labelled "(inferred)": for --kube-version's routing, or without it only the shapes every release routes alike
(get RV="" reaches etcd; get RV="0"/N, watches and lists at RV="0" are answered by the watch cache).

Formats, in any mix, one file or many:
  httplog        1.20+: "HTTP" verb="LIST" URI="…" latency="…" userAgent="…" audit-ID="…" srcIP="…" apf_…=… resp=200
                 (klog text or --logging-format=json); 1.18–1.19: verb="GET" URI="…" latency=2ms resp=200
                 UserAgent="…" srcIP="…":  ; older: GET /api/v1/…: (2ms) 200 [[user agent] addr]
                 A request with watch=true or a /watch/ path is a watch whatever verb it was logged with; a
                 watch logged when it started (1.30, resp=0) has no status and is not an error.
  audit          audit.k8s.io/v1 Events, one per line or pretty-printed over several lines (a lone "{" opens
                 one), a JSON array of them or an EventList (ResponseComplete/Panic counted once; other stages
                 skipped; a request in both httplog and audit, same audit ID, is counted once)
  traces         Trace[N]: "List" … (total time: 812ms): and its step lines (k8s.io/utils/trace: before 1.20
                 END was written only after a slow last step, so a missing END is not a cut trace)
  simulator      informer-ts apiserver --http-log JSON lines; the apiserver-load study's --log
  Lines may carry a CRI (containerd) or docker json-file wrapper (its timestamp gives klog's missing year).
  Other klog lines are counted and skipped; lines of no known format, or of a known one that cannot be read,
  are counted as malformed and the first 10 are named with file and line.

Flags:
  --json <file>           write the whole analysis as JSON
  --report <file.html>    write an HTML report with inline SVG charts (no network)
  --kube-version <1.xx>   the release that wrote the logs (1.18 … 1.34): infer served-from for its routing
  --top <n>               rows of the top table and the slow lists (default 10)
  --slow-ms <ms>          list requests at least this slow (default 500, kube-apiserver's trace threshold)
  -h, --help              show this help

Exit status: 0 analysed, every line read; 1 malformed lines were found (tables still printed, the first named
with file and line) or a file could not be read; 2 bad command line.
`;
