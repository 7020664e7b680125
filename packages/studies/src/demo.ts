import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject } from "@informer-ts/apimachinery";
import {
  DeletedFinalStateUnknown,
  type ListerWatcher,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newSharedIndexInformer,
  type ReflectorEvent,
  type ReflectorPhase,
  type SharedIndexInformer,
  type Watch,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { realClock, seededRand } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { EventsPerSecond, formatNumber, progressReporter, renderEventChart, summarizeMetrics } from "./demo-chart.js";
import {
  checkConverged,
  checkRelistAfterReinit,
  checkRewatchAfterDrop,
  type DemoCheck,
  formatCheck,
} from "./demo-checks.js";

/**
 * Options of {@link runDemo}. The demo runs on the real clock over real sockets by design (a virtual clock cannot
 * drive real I/O), so `seed` fixes the sequence of writes the churn makes, not the timing of the run: how the writes
 * interleave with the informer's requests, and therefore the exact counts printed, vary from run to run.
 */
export interface DemoOptions {
  /** ConfigMaps on the server before the informer starts. */
  readonly objects: number;
  /** Churn phase length in seconds. */
  readonly seconds: number;
  /** Changes per second during churn. */
  readonly rate: number;
  /** Seed of the writer's random stream: which objects are updated, created or deleted, in which order. */
  readonly seed: number;
  /**
   * How long the watch cache stays unready after the re-initialization fault (default 1 s). The demo expects 429s
   * during that time: with 0 there are none, and that check fails.
   */
  readonly downtimeMs?: number;
  /**
   * How long to wait for the informer's initial sync before failing (default 60 s). The failure names what did not
   * happen and the reflector's last error; everything the demo started is stopped either way.
   */
  readonly syncTimeoutMs?: number;
  /** How long to wait after the churn for the store to equal the server's storage (default 30 s). */
  readonly convergeTimeoutMs?: number;
  /**
   * Stops the demo early (the CLI aborts it on Ctrl-C): the informer, the client, the HTTP server and the engine are
   * stopped, then `runDemo` rejects with a {@link DemoInterruptedError}.
   */
  readonly signal?: AbortSignal;
  /** Where the report lines go (default: stdout). */
  readonly out?: (line: string) => void;
}

/** What the demo measured; `ok` is the verdict (every check passed), `checks` say why. */
export interface DemoResult {
  /** Every check passed: both faults had their expected outcome and the store converged. */
  readonly ok: boolean;
  /** The expectations, in the order they were printed: fault 1's outcome, fault 2's, convergence. */
  readonly checks: readonly DemoCheck[];
  /** The informer's store equals the server's storage, key by key and resourceVersion by resourceVersion. */
  readonly converged: boolean;
  /** When not converged: the first difference found (in the server's key order), else undefined. */
  readonly mismatch?: string;
  readonly url: string;
  readonly syncMs: number;
  /** Writes the churn made: `changes = updates + creates + deletes`. */
  readonly changes: number;
  readonly writes: { readonly updates: number; readonly creates: number; readonly deletes: number };
  readonly storeSize: number;
  readonly serverSize: number;
  /**
   * Handler calls. They include the lists' replays: `initialAdds` of the adds came from the initial list (client-go's
   * `isInInitialList`; a relist's adds are not flagged), `replayedUpdates` of the updates are a relist re-delivering an object unchanged (same resourceVersion),
   * `replayedDeletes` of the deletes are a relist finding an object gone (a `DeletedFinalStateUnknown`).
   */
  readonly handlerCalls: {
    readonly adds: number;
    readonly updates: number;
    readonly deletes: number;
    readonly initialAdds: number;
    readonly replayedUpdates: number;
    readonly replayedDeletes: number;
  };
  /** Watch events the informer received per second since the churn began (live, and a relist's initial events). */
  readonly eventsPerSecond: ReadonlyArray<{ readonly live: number; readonly initial: number }>;
  readonly lists: number;
  readonly watchLists: number;
  readonly watches: number;
  readonly relists: Record<string, number>;
  readonly phases: string[];
  /** Requests the server saw from the demo's client: `verb code served-from` → count. */
  readonly serverRequests: Record<string, number>;
}

/** How {@link runDemo} rejects when its `signal` aborts it (after stopping everything it started). */
export class DemoInterruptedError extends Error {
  override readonly name = "DemoInterruptedError";
}

/** The user agent of the demo's informer; the server's request accounting is filtered on it. */
export const DEMO_USER_AGENT = "informer-demo/0.1.0";

function configMap(i: number, generation: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(5, "0")}`, namespace: `ns-${i % 10}`, labels: { app: `app-${i % 7}` } },
    data: { generation: String(generation), payload: "x".repeat(200) },
  };
}

const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/**
 * Compares the informer's store with the server's storage (`[namespace/name, object]` in key order): the first
 * difference as text, or undefined when they hold the same keys at the same resourceVersions.
 */
function firstMismatch(
  server: ReadonlyArray<readonly [string, KubeObject]>,
  informer: SharedIndexInformer<KubeObject>,
): string | undefined {
  const store = informer.getIndexer();
  for (const [key, obj] of server) {
    const want = obj.metadata?.resourceVersion;
    const got = store.getByKey(key);
    if (got === undefined) return `${key} (resourceVersion ${want}) is on the server but not in the store`;
    const have = got.metadata?.resourceVersion;
    if (have !== want) return `${key}: store has resourceVersion ${have}, the server ${want}`;
  }
  if (store.listKeys().length !== server.length) {
    const onServer = new Set(server.map(([key]) => key));
    const extra = store
      .listKeys()
      .sort()
      .find((key) => !onServer.has(key));
    return `${extra ?? "?"} is in the store but not on the server (store ${store.listKeys().length}, server ${server.length})`;
  }
  return undefined;
}

/**
 * The ListerWatcher `lw` with every watch event counted as it arrives: `onEvents(n, initial)` where `initial` says
 * the event belongs to a watch-list's initial state (before its initial-events-end bookmark); a LIST counts its
 * items as initial. Bookmarks and ERROR events are not counted.
 */
function countingListerWatcher(
  lw: ListerWatcher<KubeObject>,
  onEvents: (n: number, initial: boolean) => void,
): ListerWatcher<KubeObject> {
  return {
    ...(lw.watchListSemanticsUnsupported !== undefined && {
      watchListSemanticsUnsupported: lw.watchListSemanticsUnsupported,
    }),
    list: async (options, signal) => {
      const list = await lw.list(options, signal);
      onEvents(list.items.length, true);
      return list;
    },
    watch: async (options, signal) => {
      const inner = await lw.watch(options, signal);
      let initial = options.sendInitialEvents === true;
      const counted: Watch<KubeObject> = {
        stop: () => inner.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const ev of inner) {
            if (ev.type === "BOOKMARK") {
              if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true") initial = false;
            } else if (ev.type !== "ERROR") {
              onEvents(1, initial);
            }
            yield ev;
          }
        },
      };
      return counted;
    },
  };
}

/**
 * The informer demo against the embedded simulated kube-apiserver. The engine (`SimApiServer`: MVCC storage with one
 * global resourceVersion, a watch cache per resource) is served over real HTTP on 127.0.0.1 by `SimHttpServer`; a
 * `SharedIndexInformer` (reflector with watch-list → RealFIFO in atomic mode → processDeltas → indexer → handler)
 * syncs through `@informer-ts/client` exactly as it would from a cluster. While writes churn the store, two faults
 * are injected on the server, and what the reflector did about each is checked from its event stream:
 * 1. every watch connection is dropped: expected, a re-watch from the last RV without a relist;
 * 2. the ConfigMap watch cache is re-initialized (watchers closed, history emptied, 429 while it is unready):
 *    expected, 429s, then 410 for the old RV and exactly one relist.
 * At the end the informer's store must equal the server's storage, key by key and resourceVersion by
 * resourceVersion. `ok` is true when all three checks pass.
 *
 * Runs on the real clock. Rejects when the initial sync does not happen within `syncTimeoutMs`, when `signal`
 * aborts it ({@link DemoInterruptedError}), or when anything else fails; either way the informer is stopped and the
 * client, the HTTP server and the engine are closed before it settles, so a caller (the CLI) can exit. Progress
 * lines are printed while creating the objects or syncing takes more than a second.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = realClock;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const syncTimeoutMs = options.syncTimeoutMs ?? 60_000;
  const convergeTimeoutMs = options.convergeTimeoutMs ?? 30_000;
  const downtimeMs = options.downtimeMs ?? 1000;
  const numbers: Array<[string, number | undefined]> = [
    ["objects", options.objects],
    ["seconds", options.seconds],
    ["rate", options.rate],
    ["seed", options.seed],
    ["downtimeMs", options.downtimeMs],
    ["syncTimeoutMs", syncTimeoutMs],
    ["convergeTimeoutMs", convergeTimeoutMs],
  ];
  for (const [name, value] of numbers) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`runDemo: ${name} must be a finite number ≥ 0, got ${value}`);
    }
  }
  const checkAborted = () => {
    if (options.signal?.aborted === true) throw new DemoInterruptedError("demo interrupted");
  };
  checkAborted();
  // Separate streams: the writer's is the only one that decides what the demo does, so a seed gives the same
  // sequence of writes however the engine's and the informer's draws (jitter, timeouts) interleave with real I/O.
  const rand = seededRand(options.seed);
  const engine = new SimApiServer({
    clock,
    rand: seededRand(options.seed + 1),
    logger: { log: (_level, message) => out(`  apiserver: ${message}`) },
  });
  const configmaps = engine.resource("configmaps");
  // The writer's working set, to pick objects to update or delete. The verdict reads the server's storage instead.
  const live = new Map<string, KubeObject>();
  let http: SimHttpServer | undefined;
  let client: KubeClient | undefined;
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const subs: Array<{ unsubscribe(): void }> = [];
  try {
    out(
      `informer demo: ${options.objects} ConfigMaps, churn ${options.rate} changes/s for ${options.seconds} s, ` +
        `seed ${options.seed} (fixes the writes, not the timing)`,
    );
    // The ConfigMaps live in ten namespaces, which must exist first (the apiserver's namespace lifecycle); all ten,
    // since the churn creates objects in each of them whatever --objects is.
    for (let n = 0; n < 10; n++) await engine.create("namespaces", "", { metadata: { name: `ns-${n}` } });
    const creating = progressReporter(clock, out);
    for (let i = 0; i < options.objects; i++) {
      const created = await engine.create("configmaps", `ns-${i % 10}`, configMap(i, 0));
      live.set(keyOf(created), created);
      checkAborted();
      if (i % 256 === 0) creating(() => `  creating ConfigMaps in the apiserver: ${i}/${options.objects}`);
    }
    http = new SimHttpServer({ backend: new EngineBackend(engine), clock });
    const url = await http.start();
    out(`  simulated kube-apiserver at ${url}`);
    // quiet: the demo injects the throttling and the dropped watch itself and narrates their outcome; the client's
    // own retry lines (info, on stderr by default) would repeat it.
    client = new KubeClient({ server: url, userAgent: DEMO_USER_AGENT }, { clock, quiet: true });

    let chart: EventsPerSecond | undefined;
    let received = 0;
    const lw = countingListerWatcher(listWatchFor(client, builtinResources.configmaps), (n, initial) => {
      received += n;
      chart?.add(clock.now(), initial, n);
    });
    const metrics = new PromMetrics();
    const informer = newSharedIndexInformer<KubeObject>(
      lw,
      { apiVersion: "v1", kind: "ConfigMap" },
      {
        name: "demo-configmaps",
        clock,
        rand: seededRand(options.seed + 3),
        indexers: { [NamespaceIndex]: metaNamespaceIndexFunc },
        metrics,
        metricLabels: { name: "demo-configmaps", group: "", version: "v1", resource: "configmaps" },
      },
    );
    const calls = { adds: 0, updates: 0, deletes: 0, initialAdds: 0, replayedUpdates: 0, replayedDeletes: 0 };
    const registration = informer.addEventHandler({
      onAdd: (_obj, isInInitialList) => {
        calls.adds++;
        if (isInInitialList) calls.initialAdds++;
      },
      onUpdate: (oldObj, newObj) => {
        calls.updates++;
        if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) calls.replayedUpdates++;
      },
      onDelete: (obj) => {
        calls.deletes++;
        if (obj instanceof DeletedFinalStateUnknown) calls.replayedDeletes++;
      },
    });

    const events: ReflectorEvent[] = [];
    subs.push(informer.reflectorEvents$.subscribe((e) => events.push(e)));
    const phases: string[] = [];
    let lastPhase: ReflectorPhase | undefined;
    subs.push(
      informer.status$.subscribe((s) => {
        const phase = s.reflector?.phase;
        if (phase !== undefined && phase !== lastPhase && phase !== "idle") {
          lastPhase = phase;
          const err = s.reflector?.lastError;
          const why = err !== undefined && phase === "backing-off" ? ` (${err.message.slice(0, 90)})` : "";
          phases.push(phase);
          out(`  reflector: ${phase}${why}`);
        }
      }),
    );

    const started = clock.now();
    let runFailure: unknown;
    running = informer.run(ac.signal).catch((err: unknown) => {
      runFailure = err;
    });
    const syncing = progressReporter(clock, out);
    while (!registration.hasSynced()) {
      checkAborted();
      if (runFailure !== undefined || clock.since(started) >= syncTimeoutMs) {
        const reflector = informer.status().reflector;
        const cause =
          runFailure !== undefined
            ? `the informer failed: ${runFailure instanceof Error ? runFailure.message : String(runFailure)}`
            : `reflector ${reflector?.phase ?? "not started"}, last error: ${reflector?.lastError?.message ?? "none"}`;
        throw new Error(
          `demo: the informer did not sync the ${options.objects} ConfigMaps from ${url} within ${syncTimeoutMs} ms ` +
            `(${informer.getIndexer().listKeys().length} in its store; ${cause})`,
        );
      }
      syncing(
        () =>
          `  syncing: ${received}/${options.objects} objects received ` +
          `(${(clock.since(started) / 1000).toFixed(1)} s)`,
      );
      await clock.sleep(10);
    }
    const syncMs = clock.since(started);
    out(`  synced ${informer.getIndexer().list().length} objects in ${syncMs} ms`);

    // Churn: another writer updates, creates and deletes at a steady rate (in-process, straight into the engine).
    const writes = { updates: 0, creates: 0, deletes: 0 };
    let changes = 0;
    let next = options.objects;
    const tickMs = 50;
    const perTick = Math.max(1, Math.round((options.rate * tickMs) / 1000));
    const ticks = Math.round((options.seconds * 1000) / tickMs);
    const pick = (): KubeObject => {
      // Map iteration order is insertion order; a random offset into it is a fair pick without an index array.
      let skip = Math.floor(rand.float() * live.size);
      for (const o of live.values()) if (skip-- === 0) return o;
      throw new Error("demo: pick from an empty set");
    };
    const checks: DemoCheck[] = [];
    const churnStart = clock.now();
    chart = new EventsPerSecond(churnStart);
    let drop: { at: number; rv: string; dropped: number } | undefined;
    let reinitAt: number | undefined;
    let tooManyAtReinit = 0;
    /** 429s the apiserver answered the informer so far (its client retries them, so the reflector may not see one). */
    const tooManyRequests = () =>
      engine.accounting
        .rows()
        .filter((r) => r.userAgent === DEMO_USER_AGENT && r.code === 429)
        .reduce((sum, r) => sum + r.count, 0);
    for (let t = 0; t < ticks; t++) {
      checkAborted();
      for (let k = 0; k < perTick; k++) {
        const r = rand.float();
        if (r < 0.6 && live.size > 0) {
          const obj = pick();
          const ns = obj.metadata?.namespace ?? "";
          const data = { ...(obj.data as Record<string, string>), generation: String(changes) };
          const updated = await engine.update("configmaps", ns, obj.metadata?.name ?? "", { ...obj, data });
          live.set(keyOf(updated), updated);
          writes.updates++;
        } else if (r < 0.8 || live.size === 0) {
          const i = next++;
          const created = await engine.create("configmaps", `ns-${i % 10}`, configMap(i, 0));
          live.set(keyOf(created), created);
          writes.creates++;
        } else {
          const obj = pick();
          await engine.delete("configmaps", obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
          live.delete(keyOf(obj));
          writes.deletes++;
        }
        changes++;
      }
      if (t === Math.floor(ticks / 3)) {
        const rv = informer.lastSyncResourceVersion();
        const at = events.length;
        const dropped = engine.faults.dropWatches("configmaps");
        drop = { at, rv, dropped };
        chart.mark(clock.now(), "watches dropped");
        out(
          `  fault 1: ${dropped} watch connection(s) dropped at RV ${rv} ` +
            "(expect a re-watch from the last RV, no relist)",
        );
      }
      if (t === Math.floor((2 * ticks) / 3)) {
        if (drop !== undefined) {
          const check = checkRewatchAfterDrop(events.slice(drop.at), drop.rv, drop.dropped);
          checks.push(check);
          out(`  ${formatCheck(check)}`);
        }
        reinitAt = events.length;
        tooManyAtReinit = tooManyRequests();
        chart.mark(clock.now(), `watch cache re-initialized, unready for ${downtimeMs} ms`);
        out(
          `  fault 2: configmaps watch cache re-initialized, unready for ${downtimeMs} ms ` +
            "(expect 429s while unready, then 410 for the old RV and exactly one relist)",
        );
        engine.faults.reinitializeCache("configmaps", downtimeMs);
      }
      await clock.sleep(tickMs);
    }

    const churnMs = clock.since(churnStart);

    // Let the informer catch up: the store must equal the server's storage, and after the re-initialization the
    // reflector must be watching again (the relist done), so that fault's outcome is complete when it is judged.
    const mismatch = () => firstMismatch(engine.storage.snapshot(configmaps), informer);
    const watchingAgain = () => reinitAt === undefined || events.slice(reinitAt).some((e) => e.type === "watch-start");
    const deadline = clock.now() + convergeTimeoutMs;
    let diff = mismatch();
    const catchingUp = progressReporter(clock, out);
    const receivedBefore = received;
    while ((diff !== undefined || !watchingAgain()) && clock.now() < deadline) {
      checkAborted();
      catchingUp(
        () =>
          `  waiting for the informer to catch up: reflector ${informer.status().reflector?.phase ?? "?"}, ` +
          `${received - receivedBefore} events received since the churn ended`,
      );
      await clock.sleep(20);
      diff = mismatch();
    }
    chart.until(clock.now());
    if (reinitAt !== undefined) {
      const check = checkRelistAfterReinit(events.slice(reinitAt), tooManyRequests() - tooManyAtReinit);
      checks.push(check);
      out(`  ${formatCheck(check)}`);
    }
    const converged = diff === undefined;
    const serverSize = engine.storage.count(configmaps);
    const storeSize = informer.getIndexer().listKeys().length;

    const counts = informer.status().reflector?.counts;
    const relists = Object.fromEntries(Object.entries(counts?.relists ?? {}).filter(([, n]) => n > 0));
    out(`  watch events the informer received per second (the writer's target: ${options.rate} changes/s):`);
    for (const line of renderEventChart(chart.rows())) out(line);
    out(
      `  the writer: ${changes} changes in ${formatNumber(churnMs / 1000)} s = ${writes.updates} updates + ` +
        `${writes.creates} creates + ${writes.deletes} deletes`,
    );
    const w = String(Math.max(calls.adds, calls.updates, calls.deletes)).length;
    out("  handler calls (they include what the initial list and the relist replayed):");
    out(
      `    adds    ${String(calls.adds).padStart(w)} = ${calls.initialAdds} from the initial list + ` +
        `${calls.adds - calls.initialAdds} new objects (from watch events or found by the relist)`,
    );
    out(
      `    updates ${String(calls.updates).padStart(w)} = ${calls.updates - calls.replayedUpdates} changes + ` +
        `${calls.replayedUpdates} unchanged objects re-delivered by the relist (same resourceVersion)`,
    );
    out(
      `    deletes ${String(calls.deletes).padStart(w)} = ${calls.deletes - calls.replayedDeletes} from watch events + ` +
        `${calls.replayedDeletes} found gone by the relist`,
    );
    const relistText = Object.entries(relists)
      .map(([cause, n]) => `${cause} ${n}`)
      .join(", ");
    out(
      `  reflector: ${counts?.watchLists ?? 0} watch-list(s) (the initial sync, then each relist), ` +
        `${counts?.watches ?? 0} watch(es), ${counts?.lists ?? 0} list(s); relists: ${relistText || "none"}`,
    );
    const serverRequests: Record<string, number> = {};
    for (const row of engine.accounting.rows()) {
      if (row.userAgent !== DEMO_USER_AGENT) continue;
      const key = `${row.verb} ${row.code}${row.servedFrom === "" ? "" : ` from ${row.servedFrom}`}`;
      serverRequests[key] = (serverRequests[key] ?? 0) + row.count;
    }
    out("  requests the apiserver saw from the informer:");
    for (const [key, n] of Object.entries(serverRequests).sort()) out(`    ${key.padEnd(28)} ${n}`);
    const summary = summarizeMetrics(await metrics.render(), "informer_");
    out(`  informer metrics${summary.labels === "" ? "" : ` ${summary.labels}`}:`);
    for (const line of summary.lines) out(`    ${line}`);
    const verdict = checkConverged(storeSize, serverSize, diff);
    checks.push(verdict);
    out(formatCheck(verdict));
    const failed = checks.filter((c) => !c.ok);
    out(
      failed.length === 0
        ? `all ${checks.length} checks passed`
        : `${failed.length} of ${checks.length} checks FAILED: ${failed.map((c) => c.name).join(", ")}`,
    );
    return {
      ok: failed.length === 0,
      checks,
      converged,
      ...(diff !== undefined && { mismatch: diff }),
      url,
      syncMs,
      changes,
      writes,
      storeSize,
      serverSize,
      handlerCalls: calls,
      eventsPerSecond: chart.rows().map((r) => ({ live: r.live, initial: r.initial })),
      lists: counts?.lists ?? 0,
      watchLists: counts?.watchLists ?? 0,
      watches: counts?.watches ?? 0,
      relists,
      phases,
      serverRequests,
    };
  } finally {
    // Whatever happened: stop the informer (and wait for it), then the client, the server and the engine. A step
    // that fails is reported and does not keep the next ones from running.
    const steps: Array<[string, () => unknown]> = [
      [
        "unsubscribe",
        () => {
          for (const s of subs) s.unsubscribe();
        },
      ],
      [
        "stop the informer",
        async () => {
          ac.abort();
          await running;
        },
      ],
      ["close the client", () => client?.close()],
      ["close the HTTP server", () => http?.close()],
      ["stop the engine", () => engine.stop()],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (err) {
        out(`  cleanup: could not ${what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
