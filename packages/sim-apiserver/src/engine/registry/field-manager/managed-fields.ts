import { newBadRequest } from "@informer-ts/apimachinery";
import { FieldSet } from "./field-set.js";
import { valuesEqual } from "./typed-value.js";

/** `metav1.ManagedFieldsEntry` as stored in `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update";
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** One manager's ownership (`fieldpath.VersionedSet` plus the entry's identity and time). */
export interface ManagerFields {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string | undefined;
  readonly set: FieldSet;
}

/** Every manager's ownership, by manager identifier ({@link managerIdentifier}). */
export type ManagedFields = Map<string, ManagerFields>;

/**
 * `BuildManagerIdentifier`: the JSON of the entry without fields, fieldsType and time — and without the apiVersion
 * for an `Apply` entry, so that an applier keeps one entry whatever version it applies with. Field order is the Go
 * struct's (manager, operation, apiVersion, subresource), which also decides how conflicts are sorted.
 */
export function managerIdentifier(m: {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion: string;
  readonly subresource: string;
}): string {
  const o: Record<string, string> = {};
  if (m.manager !== "") o.manager = m.manager;
  o.operation = m.operation;
  if (m.operation !== "Apply" && m.apiVersion !== "") o.apiVersion = m.apiVersion;
  if (m.subresource !== "") o.subresource = m.subresource;
  return JSON.stringify(o);
}

function invalid(i: number, what: string): never {
  throw newBadRequest(`error decoding managed fields: entry ${i}: ${what}`);
}

/**
 * Decoded ownership by the `managedFields` list it was encoded to or decoded from. A list is looked up only when it
 * and its entries are frozen (a stored object, or a result the registry froze), so a hit can never be stale; the
 * sets are immutable by convention, and every hit hands out its own map. This is what spares a write the decoding
 * of the live object's FieldsV1 and, with the sets keeping their identity, the encoding of the entries it did not
 * change (each set caches its FieldsV1).
 */
const decodedLists = new WeakMap<readonly unknown[], ManagedFields>();

/** Lists {@link encodeManagedFields} produced (and the stored copies that adopted them): sorted, no empty entry. */
const encodedLists = new WeakSet<readonly unknown[]>();

/**
 * Whether `entries` is a list {@link encodeManagedFields} produced, frozen since, whose decoding is `managed`: what
 * encoding `managed` again would give, so a write that leaves every entry as it was keeps the list itself.
 */
export function encodes(entries: unknown, managed: ManagedFields): entries is readonly ManagedFieldsEntry[] {
  if (!frozenList(entries) || !encodedLists.has(entries)) return false;
  const known = decodedLists.get(entries);
  if (known === undefined || known.size !== managed.size) return false;
  for (const [id, m] of managed) {
    const k = known.get(id);
    if (
      k === undefined ||
      k.set !== m.set ||
      k.time !== m.time ||
      k.manager !== m.manager ||
      k.operation !== m.operation ||
      k.apiVersion !== m.apiVersion ||
      k.subresource !== m.subresource
    )
      return false;
  }
  return true;
}

function frozenList(entries: unknown): entries is readonly unknown[] {
  return Array.isArray(entries) && Object.isFrozen(entries) && entries.every((e) => Object.isFrozen(e));
}

/**
 * Tells the decoding cache that `stored` (a frozen copy the storage made) carries the managed fields of `produced`
 * (what {@link encodeManagedFields} returned for it): the next write decodes them for free. A list that differs
 * (conversion, a storage that rewrote it) is left to be decoded.
 */
export function adoptManagedFields(stored: unknown, produced: unknown): void {
  if (!Array.isArray(produced) || stored === produced || !frozenList(stored)) return;
  const managed = decodedLists.get(produced);
  if (managed !== undefined && valuesEqual(stored, produced)) {
    decodedLists.set(stored, managed);
    if (encodedLists.has(produced)) encodedLists.add(stored);
  }
}

/**
 * Forgets the decoding of `entries`, the list of a version that a later write replaced or removed: decoded ownership
 * is kept for the live version only (the one the next write decodes), not for every version the storage and the
 * watch cache's history still hold. A later decode of `entries` (a write against a stale copy) decodes it again.
 */
export function releaseManagedFields(entries: unknown): void {
  if (!Array.isArray(entries)) return;
  decodedLists.delete(entries);
  encodedLists.delete(entries);
}

/**
 * `DecodeManagedFields`: the ownership recorded in `metadata.managedFields`. Throws 400 BadRequest for an entry that
 * is not an object, has a `fieldsType` other than `FieldsV1`, an unknown operation or a malformed `fieldsV1`.
 */
export function decodeManagedFields(entries: unknown): ManagedFields {
  const known = frozenList(entries) ? decodedLists.get(entries) : undefined;
  if (known !== undefined) return new Map(known);
  const out: ManagedFields = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries))
    throw newBadRequest("error decoding managed fields: metadata.managedFields is not a list");
  entries.forEach((e: unknown, i) => {
    if (typeof e !== "object" || e === null || Array.isArray(e)) invalid(i, "not an object");
    const entry = e as ManagedFieldsEntry;
    if (entry.fieldsType !== "FieldsV1") invalid(i, `invalid fieldsType ${JSON.stringify(entry.fieldsType ?? "")}`);
    if (entry.operation !== "Apply" && entry.operation !== "Update") {
      invalid(i, `invalid operation ${JSON.stringify(entry.operation ?? "")}`);
    }
    const m = {
      manager: typeof entry.manager === "string" ? entry.manager : "",
      operation: entry.operation,
      apiVersion: typeof entry.apiVersion === "string" ? entry.apiVersion : "",
      subresource: typeof entry.subresource === "string" ? entry.subresource : "",
    };
    const set = FieldSet.fromFieldsV1(entry.fieldsV1 ?? {});
    const id = managerIdentifier(m);
    const prev = out.get(id);
    out.set(id, {
      ...m,
      time: typeof entry.time === "string" ? entry.time : undefined,
      set: prev === undefined ? set : prev.set.union(set),
    });
  });
  if (frozenList(entries)) decodedLists.set(entries, new Map(out));
  return out;
}

function unixSeconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * `EncodeObjectManagedFields`: the entries of every manager that owns something, sorted as upstream's
 * `sortEncodedManagedFields` (operation, then time in seconds, manager, apiVersion, subresource).
 */
export function encodeManagedFields(managed: ManagedFields): ManagedFieldsEntry[] {
  const owning = [...managed].filter(([, m]) => !m.set.isEmpty());
  const cmp = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);
  owning.sort(
    ([, p], [, q]) =>
      cmp(p.operation, q.operation) ||
      unixSeconds(p.time) - unixSeconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
  const out = owning.map(([, m]) => {
    const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time !== undefined) e.time = m.time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource !== "") e.subresource = m.subresource;
    return e;
  });
  // What decoding `out` would give back, in its order.
  decodedLists.set(out, new Map(owning));
  encodedLists.add(out);
  return out;
}
