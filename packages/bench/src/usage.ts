// The help of `pnpm bench`. Imports nothing on purpose: the root launcher (scripts/launch.mjs) compiles this one file
// on the fly to answer `--help` before (and without) building the packages.

/** An environment variable a benchmark reads: name, default, meaning. */
export interface BenchEnvVar {
  readonly name: string;
  readonly default: string;
  readonly meaning: string;
}

/** One suite of `pnpm bench`: its name on the command line, what it measures, the variables it reads. */
export interface BenchSuite {
  readonly name: string;
  readonly summary: string;
  /** The result files it writes, under `bench-results/` in the current directory. */
  readonly results: readonly string[];
  readonly env: readonly BenchEnvVar[];
}

/** The suites, in the order a bare `pnpm bench` runs them. Every `BENCH_*` variable any of them reads is listed. */
export const BENCH_SUITES: readonly BenchSuite[] = [
  {
    name: "workqueue",
    summary:
      "add/get/done cycles (1M keys, 50% duplicate adds), 100k delayed items under a FakeClock, heap after a 1M " +
      "burst; each beside a naive array + Set queue",
    results: ["workqueue"],
    env: [],
  },
  {
    name: "reflector",
    summary:
      "initial sync of N ConfigMaps through LIST (paginated) vs watch-list, in-process and over HTTP against the " +
      "simulated apiserver, each beside a naive unpaginated LIST; time to hasSynced and peak heap",
    results: ["reflector-initial-sync", "reflector-initial-sync-http"],
    env: [
      { name: "BENCH_REFLECTOR_N", default: "100000", meaning: "ConfigMaps synced in-process" },
      { name: "BENCH_REFLECTOR_HTTP_N", default: "100000", meaning: "ConfigMaps synced over HTTP" },
      { name: "BENCH_REFLECTOR_REPS", default: "3", meaning: "rounds of the HTTP variants (best of each figure)" },
      {
        name: "BENCH_REFLECTOR_CPU_PROF",
        default: "unset",
        meaning: "a directory for a --cpu-prof profile of each HTTP variant",
      },
    ],
  },
  {
    name: "cache",
    summary:
      "store/indexer add, update, delete and replace on 100k objects with indexes, and RealFIFO/DeltaFIFO " +
      "throughput and retained heap for 1M deltas, each beside a naive Map or array",
    results: ["cache-store", "cache-fifo"],
    env: [],
  },
  {
    name: "apiserver",
    summary:
      "the simulated apiserver: heap per idle watch (HTTP and in-process), how many watches the machine holds, " +
      "event delivery throughput to many watchers, LIST of many objects (cache, paginated, watch-list), validated " +
      "writes (Pod, Deployment, a 20-field custom resource) beside the same with admission off",
    results: ["apiserver"],
    env: [
      { name: "BENCH_APISERVER_WATCHES", default: "10000", meaning: "idle HTTP watches for the heap figure" },
      { name: "BENCH_APISERVER_MAX_WATCHES", default: "50000", meaning: "cap of the watch ramp" },
      { name: "BENCH_APISERVER_RAMP_STEP", default: "5000", meaning: "watches added per ramp step" },
      { name: "BENCH_APISERVER_INPROCESS_WATCHES", default: "10000", meaning: "idle in-process watches" },
      {
        name: "BENCH_APISERVER_INITIAL_OBJECTS",
        default: "10000",
        meaning: "objects in the RV=0 watches' initial list",
      },
      { name: "BENCH_APISERVER_INITIAL_WATCHES", default: "200", meaning: "RV=0 watches held for that figure" },
      { name: "BENCH_APISERVER_WATCHERS", default: "1000", meaning: "watchers of the delivery-throughput runs" },
      { name: "BENCH_APISERVER_WRITES", default: "2000", meaning: "writes of the in-process throughput run" },
      { name: "BENCH_APISERVER_HTTP_WRITES", default: "1000", meaning: "writes of the HTTP throughput run" },
      { name: "BENCH_APISERVER_LIST", default: "100000", meaning: "objects listed" },
      { name: "BENCH_APISERVER_PAGE", default: "500", meaning: "page size of the paginated list" },
      {
        name: "BENCH_APISERVER_ADMISSION_WRITES",
        default: "20000",
        meaning: "objects created then updated per admission case (0 skips them)",
      },
      { name: "BENCH_APISERVER_REPS", default: "3", meaning: "timed repetitions after one warm-up (best reported)" },
    ],
  },
  {
    name: "informer",
    summary:
      "N ConfigMaps over HTTP from the simulated apiserver, initial sync (one LIST at the seed's RV) then N watch " +
      "events replayed from the watch cache, delivered to one callback handler, to 1, 4 and 16 notifications$ " +
      "subscribers, through watcher().pipe(reflect(store)), and through client-node's makeInformer (each client in " +
      "its own child): events/s, client CPU, peak RSS, retained bytes per cached object, as ratios to client-node " +
      "and to the raw NDJSON floor, with the bare reflector's watch measured in the same run",
    results: ["informer"],
    env: [
      { name: "BENCH_INFORMER_N", default: "100000", meaning: "ConfigMaps synced, then updated once each" },
      { name: "BENCH_INFORMER_REPS", default: "2", meaning: "rounds of every path (lowest of each figure)" },
      {
        name: "BENCH_INFORMER_CPU_PROF",
        default: "unset",
        meaning: "a directory for a --cpu-prof profile of each child",
      },
    ],
  },
  {
    name: "controller",
    summary:
      "no-op reconcile throughput of the controller with 1, 4 and 16 workers beside a hand-written and a bare workqueue " +
      "loop, event-to-reconcile latency p50/p99 at 1k and 10k events/s through a shared informer (in-process, real " +
      "clock), and the same no-op controller over HTTP beside client-node's makeInformer with a hand-written queue",
    results: ["controller"],
    env: [
      { name: "BENCH_CONTROLLER_N", default: "100000", meaning: "keys reconciled per throughput run" },
      { name: "BENCH_CONTROLLER_ROUNDS", default: "7", meaning: "throughput rounds per worker count (medians)" },
      { name: "BENCH_CONTROLLER_LATENCY_SECONDS", default: "3", meaning: "length of each latency run, seconds" },
      { name: "BENCH_CONTROLLER_POOL", default: "5000", meaning: "ConfigMaps the latency and HTTP runs modify" },
      { name: "BENCH_CONTROLLER_HTTP", default: "1", meaning: "0 skips the over-HTTP client-node comparison" },
      {
        name: "BENCH_CONTROLLER_HTTP_ROUNDS",
        default: "3",
        meaning: "over-HTTP rounds of both children, order alternating (medians)",
      },
      {
        name: "BENCH_CONTROLLER_CPU_PROF",
        default: "unset",
        meaning: "a directory for a --cpu-prof profile of each over-HTTP child",
      },
    ],
  },
  {
    name: "testing",
    summary:
      "@informer-ts/testing: wall time, CPU time and generated cases per second of a case of 2k ConfigMaps and a " +
      "virtual hour of writes and faults (the library's shared informer, every invariant checked), in-process vs over " +
      "HTTP",
    results: ["testing"],
    env: [
      { name: "BENCH_TESTING_OBJECTS", default: "2000", meaning: "ConfigMaps in the cluster before the history" },
      { name: "BENCH_TESTING_MINUTES", default: "60", meaning: "virtual minutes of history per case" },
      { name: "BENCH_TESTING_STEPS_PER_MINUTE", default: "10", meaning: "generated writes and faults per minute" },
      { name: "BENCH_TESTING_CASES", default: "4", meaning: "in-process cases measured" },
      { name: "BENCH_TESTING_HTTP_CASES", default: "2", meaning: "cases measured over HTTP (0: none)" },
    ],
  },
  {
    name: "cluster",
    summary:
      "@informer-ts/sim-cluster in virtual time: nodes created with Leases, then Deployments whose pods are created, " +
      "scheduled, Running and Ready — per variant (before/after in one run): wall and CPU seconds, pods per CPU and " +
      "wall second, writes per pod by verb, heap per node and per pod; a projected full-size line",
    results: ["cluster"],
    env: [
      { name: "BENCH_CLUSTER_FULL", default: "0", meaning: "1: the full size (5,000 nodes, 1,500 × 100 pods)" },
      {
        name: "BENCH_CLUSTER_VARIANTS",
        default: "before,trimmed,fast,shared",
        meaning: "variants run (full size: shared)",
      },
      { name: "BENCH_CLUSTER_NODES", default: "100", meaning: "simulated nodes (full size 5000)" },
      { name: "BENCH_CLUSTER_DEPLOYMENTS", default: "20", meaning: "Deployments created (full size 1500)" },
      { name: "BENCH_CLUSTER_REPLICAS", default: "100", meaning: "replicas of each Deployment" },
      { name: "BENCH_CLUSTER_EVENTS", default: "0", meaning: "1 records Events (scheduler, kubelet, controllers)" },
      { name: "BENCH_CLUSTER_MANAGED_FIELDS", default: "1", meaning: "0: the engine records no managedFields" },
    ],
  },
  {
    name: "instructions",
    summary:
      "instruction counts under valgrind's callgrind (repeatable on a loaded machine) of in-process harnesses: " +
      "informer fan-out to 1 callback vs 1/4/16 notifications$ subscribers and watcher().pipe(reflect(store)), " +
      "no-op reconciles with PromMetrics vs " +
      "metrics off, full vs metadata-only LIST over loopback, the client's decode of prepared LIST bodies, validated vs " +
      "unvalidated writes (Pod, Deployment, custom resource) in-process, a controller burst of NDJSON chunks vs a " +
      "client-node-like reference, the raw NDJSON floor vs the Reflector into a store; a base run subtracted; skips " +
      "without valgrind",
    results: ["instructions"],
    env: [
      { name: "BENCH_INSTRUCTIONS_EVENTS", default: "50000", meaning: "MODIFIED events of the fan-out harness" },
      { name: "BENCH_INSTRUCTIONS_RECONCILES", default: "100000", meaning: "keys of the reconcile harness" },
      { name: "BENCH_INSTRUCTIONS_WORKERS", default: "4", meaning: "workers of the reconcile harness" },
      { name: "BENCH_INSTRUCTIONS_LIST", default: "2000", meaning: "ConfigMaps of the LIST harness" },
      { name: "BENCH_INSTRUCTIONS_LISTS", default: "3", meaning: "LISTs per variant of the LIST harness" },
      {
        name: "BENCH_INSTRUCTIONS_BURST",
        default: "5000",
        meaning: "keys modified once each in the burst and floor harnesses",
      },
      {
        name: "BENCH_INSTRUCTIONS_FLOOR_WARMUP",
        default: "1",
        meaning: "backlogs the floor harness replays before the measured one (0: the count includes compiling)",
      },
      {
        name: "BENCH_INSTRUCTIONS_WRITES",
        default: "2000",
        meaning: "objects created then updated per writes variant",
      },
      {
        name: "BENCH_INSTRUCTIONS_HARNESSES",
        default: "fanout,reconcile,list,decode,writes,burst,floor",
        meaning: "the harnesses run, comma-separated",
      },
    ],
  },
];

/** `text` wrapped at `width` columns; lines after the first start with `indent`. */
function wrap(text: string, indent: string, width = 110): string[] {
  const lines: string[] = [];
  const lead = /^ */.exec(text)?.[0] ?? "";
  let line = lead;
  for (const word of text.slice(lead.length).split(" ")) {
    if (line.trim() !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line.trim() === "" ? line + word : `${line} ${word}`;
    }
  }
  if (line.trim() !== "") lines.push(line);
  return lines;
}

function envLines(env: readonly BenchEnvVar[]): string[] {
  const width = Math.max(...env.map((v) => v.name.length));
  return env.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning} (default ${v.default})`);
}

/**
 * The usage of `pnpm bench`, or of one suite when `suite` names one: what it measures, the result files, and the
 * environment variables it reads.
 */
export function benchUsage(suite?: string): string {
  const one = BENCH_SUITES.find((s) => s.name === suite);
  if (one !== undefined) {
    const lines = [
      `Usage: pnpm bench ${one.name}`,
      "",
      ...wrap(`Measures ${one.summary}.`, ""),
      `Writes ${one.results.map((r) => `bench-results/${r}.json and .md`).join(", ")}; prints the markdown tables.`,
      "",
      one.env.length === 0 ? "Environment: none read." : "Environment (integers unless said otherwise):",
      ...(one.env.length === 0 ? [] : envLines(one.env)),
    ];
    return `${lines.join("\n")}\n`;
  }
  const nameWidth = Math.max(...BENCH_SUITES.map((s) => s.name.length));
  const allEnv = BENCH_SUITES.flatMap((s) => s.env);
  const lines = [
    "Usage: pnpm bench [suite…]",
    "       node --expose-gc packages/bench/dist/main.js [suite…]",
    "",
    "Runs the named benchmark suites, or all of them (in this order) when none is named. Each prints a markdown",
    "table and writes bench-results/<name>.json and .md in the current directory. Full sizes take minutes and",
    "need a quiet machine; the environment variables below shrink them for a quick run.",
    "",
    "Suites:",
    ...BENCH_SUITES.flatMap((s) => wrap(`  ${s.name.padEnd(nameWidth)}  ${s.summary}`, " ".repeat(nameWidth + 4))),
    "",
    "Flags:",
    "  -h, --help  show this help (pnpm bench <suite> --help: that suite's help)",
    "",
    "Environment (integers unless said otherwise; a bad value is an error naming the variable):",
    ...envLines(allEnv),
    "",
    "Example (a quick run of one suite):",
    "  BENCH_REFLECTOR_N=10000 BENCH_REFLECTOR_HTTP_N=10000 pnpm bench reflector",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * The text `pnpm bench` prints for a command line that asks for help (`-h`, `--help`, or `help` as the first
 * argument): the help of the suite named beside it, else the general usage. Undefined when the command line does not
 * ask for help.
 */
export function helpFor(args: readonly string[]): string | undefined {
  const asks = args.some((a) => a === "-h" || a === "--help") || args[0] === "help";
  if (!asks) return undefined;
  const suite = args.find((a) => BENCH_SUITES.some((s) => s.name === a));
  return benchUsage(suite);
}
