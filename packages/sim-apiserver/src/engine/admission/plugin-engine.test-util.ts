// Engine tests of the admission plugins: an in-process engine on a FakeClock with the given admission settings.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { SimApiServer } from "../sim-apiserver.js";
import type { SimApiServerOptions } from "../sim-apiserver-options.js";

/** A fresh engine (no compaction, no progress notifications); `admission` as `SimApiServerOptions.admission`. */
export function pluginEngine(admission?: SimApiServerOptions["admission"], seed = 7): SimApiServer {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(seed),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
    ...(admission !== undefined && { admission }),
  });
}
