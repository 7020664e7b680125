// The apiserver bench's sizes, read from the environment. Each can be lowered (or raised)
// for quick runs, e.g.
//   BENCH_APISERVER_WATCHES=2000 BENCH_APISERVER_MAX_WATCHES=4000 BENCH_APISERVER_LIST=10000 \
//   node --expose-gc packages/bench/dist/main.js apiserver
import { envInt } from "./util.js";

/** Reads the sizes from the environment (an invalid value is an error naming the variable). */
export const readSizes = () => ({
  /** Idle HTTP watches held for the first heap figure (and the bare node:http baseline). */
  watches: envInt("BENCH_APISERVER_WATCHES", 10_000),
  /** Cap of the "as many as the machine allows" ramp (it also stops below the fd limit, or on errors). */
  maxWatches: envInt("BENCH_APISERVER_MAX_WATCHES", 50_000),
  /** Watches added per ramp step. */
  rampStep: envInt("BENCH_APISERVER_RAMP_STEP", 5_000),
  /** Idle in-process watches for the engine-only heap figure. */
  inProcessWatches: envInt("BENCH_APISERVER_INPROCESS_WATCHES", 10_000),
  /** Objects in the initial list of the RV=0 watches whose heap is measured after that list was consumed. */
  initialObjects: envInt("BENCH_APISERVER_INITIAL_OBJECTS", 10_000),
  /** RV=0 watches held for that figure. */
  initialWatches: envInt("BENCH_APISERVER_INITIAL_WATCHES", 200),
  /** Watchers of the delivery-throughput runs. */
  watchers: envInt("BENCH_APISERVER_WATCHERS", 1_000),
  /** Writes of the in-process throughput run (each is one event per watcher). */
  writes: envInt("BENCH_APISERVER_WRITES", 2_000),
  /** Writes of the HTTP throughput run. */
  httpWrites: envInt("BENCH_APISERVER_HTTP_WRITES", 1_000),
  /** Objects listed. */
  listObjects: envInt("BENCH_APISERVER_LIST", 100_000),
  /** Page size of the paginated (legacy exact) list. */
  pageSize: envInt("BENCH_APISERVER_PAGE", 500, 1),
  /** Timed repetitions (best one reported) after one warm-up. */
  reps: envInt("BENCH_APISERVER_REPS", 3, 1),
});

/** The sizes of one run of the apiserver bench. */
export type ApiserverSizes = ReturnType<typeof readSizes>;
