import type { SimCluster } from "./sim-cluster.js";

/** The outcome of one invariant: `ok`, or the violations found (each a readable sentence). Never thrown. */
export interface InvariantReport {
  readonly name: string;
  readonly ok: boolean;
  readonly violations: readonly string[];
}

/** One notification a handler received, as {@link handlerViewConverges} and {@link notificationsOrdered} read it. */
export type RecordedNotification =
  | { readonly type: "add"; readonly at: number; readonly key: string; readonly rv: string; readonly initial: boolean }
  | {
      readonly type: "update";
      readonly at: number;
      readonly key: string;
      readonly oldRv: string;
      readonly rv: string;
    }
  | {
      readonly type: "delete";
      readonly at: number;
      readonly key: string;
      /** The deleted object's resourceVersion; undefined for a `DeletedFinalStateUnknown` without an object. */
      readonly rv: string | undefined;
      readonly tombstone: boolean;
    };

const MAX_LISTED = 10;

function report(name: string, violations: string[]): InvariantReport {
  const shown =
    violations.length > MAX_LISTED
      ? [...violations.slice(0, MAX_LISTED), `… and ${violations.length - MAX_LISTED} more`]
      : violations;
  return { name, ok: violations.length === 0, violations: shown };
}

/**
 * What the expected side of a convergence check is: the server's objects (`server`, the default), or a selection of
 * them (`serverView`: a subject with a label or field selector), where an object the subject still holds may exist on
 * the server and only have left the selection.
 */
export type ConvergenceTruth = "server" | "serverView";

/** Compares two `key → resourceVersion` maps; each difference is one sentence. */
function diff(
  what: string,
  got: ReadonlyMap<string, string>,
  want: ReadonlyMap<string, string>,
  truth: ConvergenceTruth,
): string[] {
  const out: string[] = [];
  const side = truth === "server" ? "server" : "the serverView selection";
  for (const [k, rv] of want) {
    const g = got.get(k);
    if (g === undefined) out.push(`${what} lacks ${k} (${side} has rv=${rv})`);
    else if (g !== rv) out.push(`${what} has ${k} at rv=${g}, ${side} at rv=${rv}`);
  }
  for (const [k, rv] of got) {
    if (want.has(k)) continue;
    out.push(
      truth === "server"
        ? `${what} has ${k} (rv=${rv}), deleted on the server`
        : `${what} has ${k} (rv=${rv}), which is not in the serverView selection (it left the selection or was deleted on the server)`,
    );
  }
  return out;
}

/**
 * `storeConverges`: the informer's store holds exactly the server's objects, at the same resourceVersions. Both sides
 * are `key → resourceVersion` maps (see {@link SimCluster} `truth`-style helpers in `checkInformer`); `truth` says
 * whether `server` is all of the server's objects or a `serverView` selection (it words the violations).
 */
export function storeConverges(
  store: ReadonlyMap<string, string>,
  server: ReadonlyMap<string, string>,
  truth: ConvergenceTruth = "server",
): InvariantReport {
  return report("storeConverges", diff("the store", store, server, truth));
}

/** Replays notifications onto an empty map: add/update set `key → rv`, delete (tombstones included) removes. */
export function replayNotifications(notes: readonly RecordedNotification[]): Map<string, string> {
  const view = new Map<string, string>();
  for (const n of notes) {
    if (n.type === "delete") view.delete(n.key);
    else view.set(n.key, n.rv);
  }
  return view;
}

/** `handlerViewConverges`: replaying a registration's notifications gives the server's state (tombstones handled). */
export function handlerViewConverges(
  notes: readonly RecordedNotification[],
  server: ReadonlyMap<string, string>,
  truth: ConvergenceTruth = "server",
): InvariantReport {
  return report("handlerViewConverges", diff("the handler's view", replayNotifications(notes), server, truth));
}

const rvNum = (rv: string): bigint | undefined => (/^\d+$/.test(rv) ? BigInt(rv) : undefined);

/**
 * `notificationsOrdered`: per key, resourceVersions never go back (an update may repeat the resourceVersion: a
 * relist re-delivers unchanged objects, as client-go's Replaced deltas do), `update.old` is the previous
 * notification's new object, no update or delete for a key the handler does not hold, no add for one it holds.
 */
export function notificationsOrdered(notes: readonly RecordedNotification[]): InvariantReport {
  const out: string[] = [];
  const held = new Map<string, string>();
  const lastRv = new Map<string, string>();
  const t = (n: RecordedNotification) => `@${n.at}`;
  for (const n of notes) {
    const cur = held.get(n.key);
    if (n.type === "add") {
      if (cur !== undefined) out.push(`${t(n)} add ${n.key} rv=${n.rv} while the handler holds rv=${cur}`);
    } else if (n.type === "update") {
      if (cur === undefined) out.push(`${t(n)} update ${n.key} rv=${n.rv} after its delete, without an add`);
      else if (n.oldRv !== cur)
        out.push(`${t(n)} update ${n.key}: old rv=${n.oldRv} is not the previous new rv=${cur}`);
    } else if (cur === undefined) {
      out.push(`${t(n)} delete ${n.key} that the handler does not hold`);
    }
    if (n.rv !== undefined) {
      const prev = lastRv.get(n.key);
      const a = prev === undefined ? undefined : rvNum(prev);
      const b = rvNum(n.rv);
      if (a !== undefined && b !== undefined) {
        const back = n.type === "update" ? b < a : n.type === "add" ? b <= a : b < a;
        if (back) out.push(`${t(n)} ${n.type} ${n.key} rv=${n.rv} goes back from rv=${prev}`);
      }
      lastRv.set(n.key, n.rv);
    }
    if (n.type === "delete") held.delete(n.key);
    else held.set(n.key, n.rv);
  }
  return report("notificationsOrdered", out);
}

/** One observation of `hasSynced` taken by a runner: the flag, and the keys in the store and handler view then. */
export interface SyncObservation {
  readonly at: number;
  readonly synced: boolean;
  readonly storeKeys: readonly string[];
  readonly notifiedKeys: readonly string[];
}

/**
 * `syncedHonest`: whenever a registration's `hasSynced` was observed true, its handler had already been given
 * every object the store held then (the initial state was delivered).
 */
export function syncedHonest(observations: readonly SyncObservation[]): InvariantReport {
  const out: string[] = [];
  for (const o of observations) {
    if (!o.synced) continue;
    const notified = new Set(o.notifiedKeys);
    const missing = o.storeKeys.filter((k) => !notified.has(k));
    if (missing.length > 0) out.push(`@${o.at} hasSynced is true but the handler never got ${missing.join(", ")}`);
  }
  return report("syncedHonest", out);
}

/**
 * `noLeaks`: after everything was stopped, no timer is pending on the cluster's clock, no request or watch is open
 * on the simulator, and no tracked work is pending.
 */
export function noLeaks(cluster: SimCluster): InvariantReport {
  const out: string[] = [];
  const p = cluster.pending();
  if (p.timers > 0) out.push(`${p.timers} timers still pending on the clock`);
  if (cluster.server.stats.openWatches > 0) out.push(`${cluster.server.stats.openWatches} watches still open`);
  if (p.requests.length > 0) out.push(`requests still in flight: ${p.requests.join(", ")}`);
  if (p.tracked.length > 0) out.push(`tracked work still pending: ${p.tracked.join(", ")}`);
  if (cluster.server.connections > 0) out.push(`${cluster.server.connections} sockets still open`);
  return report("noLeaks", out);
}
