import type { KubeList, ListOptions } from "@informer-ts/apimachinery";
import { metaOf } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { firstDifference } from "../internal/deep-equal.js";
import { envVar, parseGoBool } from "../internal/go-helpers.js";
import type { TransformFunc } from "../transform-func.js";
import { type ReflectorLogger, safeLog } from "./logger.js";

/**
 * Whether `KUBE_WATCHLIST_INCONSISTENCY_DETECTOR` asks for the watch-list data consistency check. Read at
 * each reflector construction (client-go reads it once at start-up).
 */
export function isDataConsistencyDetectionForWatchListEnabled(): boolean {
  return parseGoBool(envVar("KUBE_WATCHLIST_INCONSISTENCY_DETECTOR")) ?? false;
}

/** What {@link checkWatchListDataConsistency} needs. */
export interface ConsistencyCheckArgs<T> {
  readonly identity: string;
  /** The RV the watch-list synced at. */
  readonly resourceVersion: string;
  readonly list: (options: ListOptions, signal?: AbortSignal) => Promise<KubeList<T>>;
  readonly transformer?: TransformFunc<T> | undefined;
  /** The items the watch-list produced. */
  readonly retrieveItems: () => T[];
  readonly clock: Clock;
  readonly logger: ReflectorLogger;
  readonly signal: AbortSignal;
  /** Called with a description of the first difference when the data differ. */
  readonly onMismatch: (detail: string) => void;
}

function uidOf(obj: unknown): string {
  const uid = metaOf(obj)?.uid;
  return typeof uid === "string" ? uid : "";
}

/**
 * The item without its TypeMeta (`apiVersion`, `kind`): a LIST of a built-in type leaves them out of the items
 * while watch events carry them, and client-go compares decoded objects, where that difference does not exist.
 */
function withoutTypeMeta<T>(item: T): T {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  const { apiVersion: _a, kind: _k, ...rest } = item as Record<string, unknown>;
  return rest as T;
}

function byUid<T>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => {
    const ua = uidOf(a);
    const ub = uidOf(b);
    return ua < ub ? -1 : ua > ub ? 1 : 0;
  });
}

/**
 * The watch-list data consistency check (`checkWatchListDataConsistencyIfRequested`): LISTs at exactly
 * `resourceVersion` (retrying every second until it succeeds or `signal` aborts), applies the transformer to the
 * listed items, sorts both sides by UID and compares them, ignoring each item's `apiVersion`/`kind`.
 *
 * Differences from client-go: a mismatch is reported through `onMismatch` (the reflector turns it into an
 * event, a status error and an error log line) instead of a panic, and a sync RV of "" is skipped like "0"
 * (an Exact list needs a concrete RV).
 */
export async function checkWatchListDataConsistency<T>(args: ConsistencyCheckArgs<T>): Promise<void> {
  const rv = args.resourceVersion;
  if (rv === "0" || rv === "") {
    safeLog(
      args.logger,
      "debug",
      "Data consistency check is enabled but the RV does not allow an exact LIST; skipping",
      {
        reflector: args.identity,
      },
    );
    return;
  }
  safeLog(
    args.logger,
    "info",
    "data consistency check is enabled, this will result in an additional call to the API server",
    {
      reflector: args.identity,
    },
  );
  const retrieved = byUid(args.retrieveItems().map(withoutTypeMeta));
  let list: KubeList<T> | undefined;
  for (;;) {
    if (args.signal.aborted) return;
    try {
      list = await args.list({ resourceVersion: rv, resourceVersionMatch: "Exact" }, args.signal);
      break;
    } catch (err) {
      if (args.signal.aborted) return;
      safeLog(args.logger, "info", "Failed to list data from the server, retrying until stopped", {
        reflector: args.identity,
        err,
      });
      try {
        await args.clock.sleep(1000, args.signal);
      } catch {
        return;
      }
    }
  }
  const transform = args.transformer;
  const listed = byUid(list.items.map((item) => withoutTypeMeta(transform === undefined ? item : transform(item))));
  const diff = firstDifference(listed, retrieved);
  if (diff === undefined) return;
  const detail = `data inconsistency detected for ${args.identity}: watch-list and LIST at RV ${rv} differ at ${diff} (${listed.length} listed, ${retrieved.length} streamed)`;
  args.onMismatch(detail);
}
