import type { KubeObject } from "@informer-ts/apimachinery";
import { deletionHandlingMetaNamespaceKeyFunc } from "../keys.js";
import type {
  BookmarkStore,
  DeletedFinalStateUnknownLike,
  KeyFunc,
  ReflectorStore,
  ResourceVersionUpdater,
} from "../store.js";

/** One call a {@link RecordingStore} received. */
export type RecordedCall<T> =
  | { readonly op: "add" | "update" | "delete"; readonly key: string; readonly object: T }
  | { readonly op: "replace"; readonly keys: readonly string[]; readonly resourceVersion: string }
  | { readonly op: "resync" }
  | { readonly op: "bookmark"; readonly resourceVersion: string }
  | { readonly op: "updateResourceVersion"; readonly resourceVersion: string };

/**
 * A reflector store for tests: keeps the objects by key (like a plain store), records every call in order, and
 * implements the optional bookmark and resource-version-updater capabilities. Failures can be injected per
 * operation with {@link RecordingStore.failOn}.
 */
export class RecordingStore<T = KubeObject> implements ReflectorStore<T>, BookmarkStore, ResourceVersionUpdater {
  readonly items = new Map<string, T>();
  readonly calls: RecordedCall<T>[] = [];
  /** Return an error to throw from that operation (checked before the store changes). */
  failOn: ((op: RecordedCall<T>["op"]) => unknown) | undefined;

  constructor(private readonly keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc) {}

  private check(op: RecordedCall<T>["op"]): void {
    const err = this.failOn?.(op);
    if (err !== undefined) throw err;
  }

  add(obj: T): void {
    this.check("add");
    const key = this.keyFunc(obj);
    this.calls.push({ op: "add", key, object: obj });
    this.items.set(key, obj);
  }

  update(obj: T): void {
    this.check("update");
    const key = this.keyFunc(obj);
    this.calls.push({ op: "update", key, object: obj });
    this.items.set(key, obj);
  }

  delete(obj: T | DeletedFinalStateUnknownLike<T>): void {
    this.check("delete");
    const key = this.keyFunc(obj);
    this.calls.push({ op: "delete", key, object: obj as T });
    this.items.delete(key);
  }

  replace(list: readonly T[], resourceVersion: string): void {
    this.check("replace");
    const next = new Map<string, T>();
    for (const obj of list) next.set(this.keyFunc(obj), obj);
    this.calls.push({ op: "replace", keys: [...next.keys()], resourceVersion });
    this.items.clear();
    for (const [k, v] of next) this.items.set(k, v);
  }

  resync(): void {
    this.check("resync");
    this.calls.push({ op: "resync" });
  }

  bookmark(resourceVersion: string): void {
    this.check("bookmark");
    this.calls.push({ op: "bookmark", resourceVersion });
  }

  updateResourceVersion(resourceVersion: string): void {
    this.calls.push({ op: "updateResourceVersion", resourceVersion });
  }

  /** The recorded operation names, in order. */
  ops(): string[] {
    return this.calls.map((c) => c.op);
  }

  /** Keys currently stored, sorted. */
  keys(): string[] {
    return [...this.items.keys()].sort();
  }
}
