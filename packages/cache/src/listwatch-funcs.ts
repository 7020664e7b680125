import type { KubeList, ListOptions } from "@informer-ts/apimachinery";
import type { ListerWatcher, Watch } from "./listwatch.js";

/** Lists one page or everything (`cache.ListFunc` / `ListWithContextFunc`). */
export type ListFunc<T> = (options: ListOptions, signal?: AbortSignal) => Promise<KubeList<T>>;

/** Opens a watch (`cache.WatchFunc` / `WatchFuncWithContext`). */
export type WatchFunc<T> = (options: ListOptions, signal?: AbortSignal) => Promise<Watch<T>>;

/** The functions of a {@link ListWatch}. */
export interface ListWatchFuncs<T> {
  readonly listFunc: ListFunc<T>;
  readonly watchFunc: WatchFunc<T>;
  /** `DisableChunking`: kept for parity; as upstream, nothing reads it (P6). */
  readonly disableChunking?: boolean;
}

/**
 * A {@link ListerWatcher} made of two functions (`cache.ListWatch`, P6). Each call receives a copy of the
 * options, so a function may modify them freely.
 *
 * Differences from client-go: there is one function of each kind, always given the request's `AbortSignal`
 * (Go has context and context-free variants and prefers the context ones).
 */
export class ListWatch<T> implements ListerWatcher<T> {
  readonly listFunc: ListFunc<T>;
  readonly watchFunc: WatchFunc<T>;
  readonly disableChunking: boolean;

  constructor(funcs: ListWatchFuncs<T>) {
    if (typeof funcs?.listFunc !== "function" || typeof funcs.watchFunc !== "function") {
      throw new TypeError("ListWatch needs listFunc and watchFunc functions");
    }
    this.listFunc = funcs.listFunc;
    this.watchFunc = funcs.watchFunc;
    this.disableChunking = funcs.disableChunking ?? false;
  }

  list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<T>> {
    return this.listFunc({ ...options }, signal);
  }

  watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<T>> {
    return this.watchFunc({ ...options }, signal);
  }
}

/**
 * Wraps `lw` so that every list and watch request first goes through `optionsModifier` (the modifier of
 * `NewFilteredListWatchFromClient`, typically setting `labelSelector` / `fieldSelector`). The modifier gets a
 * copy and may change it in place. `watchListSemanticsUnsupported` is carried over.
 */
export function newFilteredListWatch<T>(
  lw: ListerWatcher<T>,
  optionsModifier: (options: ListOptions) => void,
): ListerWatcher<T> {
  const out: ListerWatcher<T> = {
    list(options, signal) {
      const o = { ...options };
      optionsModifier(o);
      return lw.list(o, signal);
    },
    watch(options, signal) {
      const o = { ...options };
      optionsModifier(o);
      return lw.watch(o, signal);
    },
  };
  if (lw.watchListSemanticsUnsupported !== undefined) {
    return { ...out, watchListSemanticsUnsupported: lw.watchListSemanticsUnsupported };
  }
  return out;
}

/** `NewListWatchFromClient` with a field selector: every request carries `fieldSelector`. */
export function newListWatchWithFieldSelector<T>(lw: ListerWatcher<T>, fieldSelector: string): ListerWatcher<T> {
  return newFilteredListWatch(lw, (o) => {
    o.fieldSelector = fieldSelector;
  });
}

/**
 * `ToListWatcherWithWatchListSemantics`: the same ListerWatcher, declaring whether it supports watch-list
 * semantics (F26). `unsupported = true` makes reflectors use LIST + WATCH.
 */
export function toListWatcherWithWatchListSemantics<T>(lw: ListerWatcher<T>, unsupported: boolean): ListerWatcher<T> {
  return {
    list: (options, signal) => lw.list(options, signal),
    watch: (options, signal) => lw.watch(options, signal),
    watchListSemanticsUnsupported: unsupported,
  };
}
