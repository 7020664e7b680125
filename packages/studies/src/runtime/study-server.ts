// Where a study's clients reach its simulated apiserver: in process on a FakeClock (virtual time), or over real
// HTTP on the real clock (`--real-time`). One place for both, so every study that supports --real-time runs the
// same informer code against the same engine either way.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ListerWatcher } from "@informer-ts/cache";
import { KubeClient, listWatchFor, type ResourceDescriptor } from "@informer-ts/client";
import { type Clock, FakeClock, realClock } from "@informer-ts/clock";
import { EngineBackend, type SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";

/** A study's clock: a `FakeClock` at 2026-01-01 in virtual time (`fake` set), else the real clock. */
export interface StudyClock {
  readonly clock: Clock;
  /** The virtual clock to drive; undefined on the real clock. */
  readonly fake: FakeClock | undefined;
}

/** The clock of a study run: the real clock with `realTime`, else a fresh `FakeClock` at 2026-01-01T00:00:00Z. */
export function studyClock(realTime: boolean): StudyClock {
  const fake = realTime ? undefined : new FakeClock(Date.UTC(2026, 0, 1));
  return { clock: fake ?? realClock, fake };
}

/** How a study's informers reach its simulated apiserver (see {@link openStudyServer}). */
export interface StudyServer {
  /** Over HTTP: the server's URL (`http://127.0.0.1:<port>`); in process: undefined. */
  readonly url: string | undefined;
  /**
   * A ListerWatcher of `resource` in every namespace: the engine's own in process, `@informer-ts/client`'s
   * `listWatchFor` over HTTP (so the requests go through the HTTP face, its accounting and its watch writer).
   */
  listerWatcher(resource: ResourceDescriptor<KubeObject>): ListerWatcher<KubeObject>;
  /** Closes the client and the HTTP server (nothing in process); the engine is the caller's to stop. */
  close(): Promise<void>;
}

/**
 * Serves `sim` to a study's clients: in process, or with `http` over a `SimHttpServer` on 127.0.0.1 and a
 * `KubeClient` on `clock` (the real clock: sockets do not run on a FakeClock). Rejects when the server cannot start.
 */
export async function openStudyServer(
  sim: SimApiServer,
  opts: { readonly http: boolean; readonly clock: Clock },
): Promise<StudyServer> {
  if (!opts.http)
    return {
      url: undefined,
      listerWatcher: (r) =>
        sim.listerWatcher(r.group === "" ? r.resource : `${r.resource}.${r.group}`) as ListerWatcher<KubeObject>,
      close: async () => {},
    };
  const http = new SimHttpServer({ backend: new EngineBackend(sim), clock: opts.clock });
  const url = await http.start();
  // quiet: a study injects its faults on purpose and reports their effect in its tables; the client's retry lines
  // would be noise in its output.
  const client = new KubeClient({ server: url }, { clock: opts.clock, quiet: true });
  return {
    url,
    listerWatcher: (r) => listWatchFor(client, r) as ListerWatcher<KubeObject>,
    close: async () => {
      await client.close();
      await http.close();
    },
  };
}
