// Shared by the example tests: a simulated apiserver on loopback HTTP under a FakeClock, KubeClients on it, and helpers
// that advance virtual time while letting sockets make progress.
import type { KubeObject } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { KubeClient, listWatchFor } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { Manager, type ManagerOptions } from "@informer-ts/controller";
import { EngineBackend, SimApiServer, SimHttpServer, type SimResource } from "@informer-ts/sim-apiserver";

export interface SimCluster {
  clock: FakeClock;
  engine: SimApiServer;
  url: string;
  client(): KubeClient;
  manager(client: KubeClient, extra?: Partial<ManagerOptions>): Manager;
  /** Advances virtual time by `ms` in `by` steps, with I/O turns between them. */
  advance(ms: number, by?: number): Promise<void>;
  /** Advances until `cond` holds (at most `maxMs`); returns whether it did. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<boolean>;
  stored(resource: string, namespace: string, name: string): KubeObject | undefined;
  close(): Promise<void>;
}

const io = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function startSimCluster(resources: readonly SimResource[] = []): Promise<SimCluster> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const engine = new SimApiServer({ clock, rand: seededRand(21) });
  for (const r of resources) engine.register(r);
  const sim = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  const url = await sim.start();
  const clients: KubeClient[] = [];
  let seed = 100;
  const advance = async (ms: number, by = 100) => {
    for (let t = 0; t < ms; t += by) {
      await clock.step(Math.min(by, ms - t));
      for (let i = 0; i < 20; i++) await io();
    }
  };
  return {
    clock,
    engine,
    url,
    client() {
      const c = new KubeClient({ server: url }, { clock, rateLimiter: null, maxRetries: 0, quiet: true });
      clients.push(c);
      return c;
    },
    manager(client, extra = {}) {
      return new Manager({
        quiet: true, // no log assertions here
        listerWatcherFor: (r, { namespace }) => listWatchFor(client, r, { namespace }),
        client,
        clock,
        rand: seededRand(seed++),
        informerOptions: { reflector: { logger: silentLogger } },
        ...extra,
      });
    },
    advance,
    async until(cond, maxMs = 60_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return true;
        await advance(100);
      }
      return false;
    },
    stored(resource, namespace, name) {
      return engine.storage.get(engine.resource(resource), namespace, name);
    },
    async close() {
      for (const c of clients) await c.close();
      await sim.close();
      engine.stop();
    },
  };
}
