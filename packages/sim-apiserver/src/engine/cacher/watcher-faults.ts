import { SimConnectionError } from "../filters/index.js";
import type { ResourceTable } from "../registry/index.js";
import type { ResourceRef } from "../request-context.js";
import { groupResourceString, type SimResource } from "../resources.js";
import type { UnknownResourceError } from "../unknown-resource-error.js";
import { CacheWatcher } from "./cache-watcher.js";

/** Which bookmarks the server sends (fault injection). */
export type BookmarkMode = "on" | "no-periodic" | "off";

/** Every {@link BookmarkMode}. */
export const BOOKMARK_MODES: readonly BookmarkMode[] = Object.freeze(["on", "no-periodic", "off"]);

/**
 * Which open watchers a watcher fault applies to; every given field must match (absent = any).
 */
export interface WatcherSelector {
  /** Only watchers of this resource. */
  readonly resource?: ResourceRef;
  /** Only watchers whose request's User-Agent contains this. */
  readonly userAgent?: string;
  /** Only these watcher ids (ids are per resource, see {@link SimApiServer.watcherInfo}). */
  readonly ids?: readonly number[];
}

/** One open watcher, as the admin API shows it. */
export interface WatcherInfo {
  readonly resource: string;
  readonly id: number;
  readonly userAgent: string;
  readonly description: string;
  readonly stalled: boolean;
  readonly inputLength: number;
  readonly resultLength: number;
  readonly delivered: number;
}

/**
 * Faults on open watches: dropped connections, watchers that stop reading (now, and future ones matching a rule),
 * which bookmarks are sent, and the listing of open watchers with who opened them. Selecting a resource that is not served throws
 * {@link UnknownResourceError} (these are synchronous admin calls).
 */
export class WatcherFaults {
  private stallRules: WatcherSelector[] = [];
  private bookmarks: BookmarkMode = "on";
  private readonly userAgents = new WeakMap<CacheWatcher, string>();

  constructor(private readonly table: ResourceTable) {}

  /** Which bookmarks the server sends now (the bookmark fault; "on" by default). */
  get bookmarkMode(): BookmarkMode {
    return this.bookmarks;
  }

  /** Sets the bookmark fault; a `RangeError` naming any value that is not a {@link BookmarkMode}. */
  setBookmarkMode(mode: BookmarkMode): void {
    if (!BOOKMARK_MODES.includes(mode)) {
      throw new RangeError(`bookmark mode must be one of ${BOOKMARK_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
    }
    this.bookmarks = mode;
  }

  /** A new watch: remember who opened it (watcher faults select by user agent) and apply the stall rules. */
  watchOpened(r: SimResource, w: unknown, userAgent: string): void {
    if (!(w instanceof CacheWatcher)) return;
    this.userAgents.set(w, userAgent);
    if (this.stallRules.some((sel) => this.matches(r, w, sel))) w.setStalled(true);
  }

  /**
   * Closes open watches (all, or of one resource) the way a dropped connection does; with `failure`, in-process
   * iteration throws it. Returns how many were closed.
   */
  drop(ref: ResourceRef | undefined, asError: boolean): number {
    const targets = ref === undefined ? this.table.allCachers() : [this.table.cacher(ref)];
    let n = 0;
    for (const c of targets) {
      n += c.dropWatchers(() => true, asError ? new SimConnectionError("watch connection dropped (fault)") : undefined);
    }
    return n;
  }

  /** Stalls the matching open watchers (and with `future`, later ones); returns how many were newly stalled. */
  stall(sel: WatcherSelector, future: boolean): number {
    if (sel.resource !== undefined) this.table.resolve(sel.resource);
    if (future) this.stallRules.push(sel);
    let n = 0;
    for (const [, w] of this.selected(sel)) {
      if (!w.isStalled) n++;
      w.setStalled(true);
    }
    return n;
  }

  /** Removes every stall rule and resumes the matching stalled watchers; returns how many were resumed. */
  resume(sel: WatcherSelector): number {
    if (sel.resource !== undefined) this.table.resolve(sel.resource);
    this.stallRules = [];
    let n = 0;
    for (const [, w] of this.selected(sel)) {
      if (w.isStalled) n++;
      w.setStalled(false);
    }
    return n;
  }

  /** Every open watcher (all resources, or one), with its id, user agent and buffer fill. */
  info(ref?: ResourceRef): WatcherInfo[] {
    return this.selected(ref === undefined ? {} : { resource: ref }).map(([r, w]) => ({
      resource: groupResourceString(r),
      id: w.id,
      userAgent: this.userAgents.get(w) ?? "",
      description: w.description,
      stalled: w.isStalled,
      inputLength: w.inputLength,
      resultLength: w.resultLength,
      delivered: w.delivered,
    }));
  }

  private selected(sel: WatcherSelector): Array<[SimResource, CacheWatcher]> {
    const targets = sel.resource === undefined ? this.table.allCachers() : [this.table.cacher(sel.resource)];
    const out: Array<[SimResource, CacheWatcher]> = [];
    for (const c of targets) {
      for (const w of c.openWatchers()) if (this.matches(c.resource, w, sel)) out.push([c.resource, w]);
    }
    return out;
  }

  private matches(r: SimResource, w: CacheWatcher, sel: WatcherSelector): boolean {
    // A rule may outlive its resource (a CustomResourceDefinition deleted after `stall-watchers … future`): it then
    // matches nothing, rather than failing every watch opened later with that resource's 404.
    if (sel.resource !== undefined && this.table.lookup(sel.resource) !== r) return false;
    if (sel.ids !== undefined && !sel.ids.includes(w.id)) return false;
    if (sel.userAgent !== undefined && !(this.userAgents.get(w) ?? "").includes(sel.userAgent)) return false;
    return true;
  }
}
