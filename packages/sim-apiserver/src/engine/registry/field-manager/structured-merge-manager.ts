import { type KubeObject, newBadRequest } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { rfc3339Seconds } from "../../object-util.js";
import { type Conflict, newApplyConflict } from "./conflict.js";
import { FieldSet } from "./field-set.js";
import {
  decodeManagedFields,
  encodeManagedFields,
  encodes,
  type ManagedFields,
  type ManagerFields,
  managerIdentifier,
} from "./managed-fields.js";
import { fieldElement, type Path } from "./path-element.js";
import type { TypeDef } from "./schema.js";
import {
  type Comparison,
  compare,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  TypedValueError,
  toFieldSet,
  valuesEqual,
} from "./typed-value.js";

/** `validation.FieldManagerMaxLength`. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Options of a {@link StructuredMergeManager}: one per resource (and subresource). */
export interface StructuredMergeManagerOptions {
  /** Group, version and kind of the objects (the apiVersion recorded in `Update` entries, the apply type check). */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The kind's schema. */
  readonly schema: TypeDef;
  /** Source of the entries' `time`. */
  readonly clock: Clock;
  /**
   * Fields this endpoint resets and therefore never records ownership of (`ResetFieldsStrategy`): `status` on the
   * main resource of a kind with a status subresource; everything but `status` on `/status`.
   */
  readonly ignoredFields?: FieldSet;
  /** `""` for the main resource, `status`/`scale` for a subresource (recorded in the entries). */
  readonly subresource?: string;
}

const f = fieldElement;

/** `stripMetaManager`'s set: fields nobody owns (identity, bookkeeping, the managed fields themselves). */
export const STRIPPED: FieldSet = FieldSet.of(
  [f("apiVersion")],
  [f("kind")],
  [f("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields"].map(
    (n): Path => [f("metadata"), f(n)],
  ),
  [f("metadata"), f("resourceVersion")],
);

/**
 * Whether an update leaves its writer's set as it is: the writer's set after the write is its set without the
 * `changed` and `removed` fields, joined with `changed` less {@link STRIPPED}; that is the set itself exactly when the
 * set already has every changed field outside STRIPPED and has none of STRIPPED nor of the removed fields. A write
 * that changes what its manager already owns (the common update) then skips the difference, the union and the
 * comparison that would rebuild the same set.
 */
export function keepsOwnership(set: FieldSet, changed: FieldSet, removed: FieldSet): boolean {
  return !set.intersects(STRIPPED) && !set.intersects(removed) && set.covers(changed.difference(STRIPPED));
}

/** A deep copy of `obj` without `metadata.managedFields` (apply: the result may be mutated below metadata later). */
function withoutManagedFields(obj: KubeObject): Record<string, unknown> {
  const copy = structuredClone(obj) as Record<string, unknown>;
  const meta = copy.metadata;
  if (typeof meta === "object" && meta !== null) delete (meta as Record<string, unknown>).managedFields;
  return copy;
}

/**
 * `obj` without `metadata.managedFields` as a new top level and metadata (what {@link withManagedFields} writes to)
 * sharing everything below with `obj`: for `update`, which only reads below metadata, so that a write of a large
 * object is not deep-copied twice here.
 */
function shallowWithoutManagedFields(obj: KubeObject): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  const meta = obj.metadata;
  if (typeof meta === "object" && meta !== null) {
    const { managedFields: _managed, ...rest } = meta;
    copy.metadata = rest;
  }
  return copy;
}

/**
 * `obj` with `managed` encoded as its `metadata.managedFields`; `previous`, the list the live object carries, is kept
 * as it is when it already encodes `managed` (a write that changed no ownership and no entry's time).
 */
function withManagedFields(obj: Record<string, unknown>, managed: ManagedFields, previous?: unknown): KubeObject {
  const entries = previous !== undefined && encodes(previous, managed) ? previous : encodeManagedFields(managed);
  const meta = (typeof obj.metadata === "object" && obj.metadata !== null ? obj.metadata : {}) as Record<
    string,
    unknown
  >;
  obj.metadata = meta;
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
  return obj as KubeObject;
}

/** `isResetManagedFields`: `[]` or `[{}]` asks to clear the managed fields. */
function isReset(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && typeof mf[0] === "object" && mf[0] !== null && Object.keys(mf[0] as object).length === 0;
}

function decodeOrEmpty(mf: unknown): ManagedFields {
  try {
    return decodeManagedFields(mf);
  } catch {
    return new Map();
  }
}

/**
 * Server-side field ownership for one resource (k8s.io/apimachinery `managedfields` `FieldManager` and its
 * `structuredMergeManager`, `stripMetaManager` and `managedFieldsUpdater` over structured-merge-diff): `update` records what a create, update or non-apply patch changed as an `Update` entry of
 * its manager; `apply` merges an applied configuration into the live object, detects conflicts with other managers,
 * takes their fields with `force`, and removes the fields the applier stopped applying that nobody else owns. Both
 * return the object to store with `metadata.managedFields` encoded as upstream writes it (FieldsV1, sorted entries).
 * Pure apart from the clock: the caller stores the result.
 */
export class StructuredMergeManager {
  readonly apiVersion: string;
  private readonly subresource: string;

  constructor(private readonly opts: StructuredMergeManagerOptions) {
    this.apiVersion = opts.group === "" ? opts.version : `${opts.group}/${opts.version}`;
    this.subresource = opts.subresource ?? "";
  }

  private now(): string {
    return rfc3339Seconds(this.opts.clock.now());
  }

  private ignore(s: FieldSet): FieldSet {
    return this.opts.ignoredFields === undefined ? s : s.recursiveDifference(this.opts.ignoredFields);
  }

  private id(manager: string, operation: "Apply" | "Update"): ManagerFields {
    return {
      manager,
      operation,
      apiVersion: this.apiVersion,
      subresource: this.subresource,
      time: undefined,
      set: new FieldSet(),
    };
  }

  /**
   * The updater's core (`Updater.update`): compares live and new, and for every manager but `workflow` finds the
   * fields it owns that changed (conflicts: thrown as a 409 unless `force`, else taken away) and drops the fields
   * that were removed; `writer`, the manager of an update, keeps its set when {@link keepsOwnership} says the write
   * leaves it as it is. Returns the new ownership, the comparison and its changed (modified or added) fields.
   */
  private reconcile(
    live: unknown,
    next: unknown,
    managers: ManagedFields,
    workflow: string,
    force: boolean,
    writer?: string,
  ): { managers: ManagedFields; cmp: Comparison; changed: FieldSet } {
    const raw = compare(live, next, this.opts.schema);
    const cmp: Comparison = {
      added: this.ignore(raw.added),
      modified: this.ignore(raw.modified),
      removed: this.ignore(raw.removed),
    };
    const changed = cmp.modified.union(cmp.added);
    // With force the conflicts are only taken away (below), so they are not looked for.
    if (!force) {
      const conflicts: Conflict[] = [];
      for (const [id, m] of managers) {
        if (id === workflow) continue;
        for (const path of m.set.intersection(changed).paths()) conflicts.push({ managerId: id, owner: m, path });
      }
      if (conflicts.length > 0) throw newApplyConflict(conflicts);
    }
    const out: ManagedFields = new Map();
    for (const [id, m] of managers) {
      const keep = id === workflow || (id === writer && keepsOwnership(m.set, changed, cmp.removed));
      const set = keep ? m.set : m.set.difference(changed).difference(cmp.removed);
      if (!set.isEmpty()) out.set(id, { ...m, set });
    }
    return { managers: out, cmp, changed };
  }

  /**
   * Records a non-apply write (create: `live` undefined; update; JSON/merge/strategic patch) by `manager` as its
   * `Update` entry: the fields this write added or changed join the manager's set (the entry's time is now), other
   * managers lose the fields it changed or removed. Managed fields sent in `obj` replace the live ones when they
   * decode and are not empty; `[]` or `[{}]` clears them. Never throws: an object that does not fit the schema is
   * returned without managed fields, as upstream's `UpdateNoErrors` does. The result has its own top level and
   * metadata and shares everything below with `obj` (the caller hands `obj` over: the registry passes its own copy).
   */
  update(live: KubeObject | undefined, obj: KubeObject, manager: string): KubeObject {
    const sent = obj.metadata?.managedFields;
    const liveManaged = live === undefined ? new Map() : decodeOrEmpty(live.metadata?.managedFields);
    let managers: ManagedFields;
    if (isReset(sent)) managers = new Map();
    else {
      const decoded = sent === undefined ? new Map() : decodeOrEmpty(sent);
      managers = decoded.size === 0 ? liveManaged : decoded;
    }
    const lv = live === undefined ? {} : shallowWithoutManagedFields(live);
    const nv = shallowWithoutManagedFields(obj);
    const workflow = "\u0000current-operation";
    try {
      const entry = this.id(manager, "Update");
      const id = managerIdentifier(entry);
      const { managers: next, changed } = this.reconcile(lv, nv, managers, workflow, true, id);
      const current = changed.difference(STRIPPED);
      if (!current.isEmpty()) {
        const prev = next.get(id);
        next.set(id, { ...entry, time: this.now(), set: prev === undefined ? current : prev.set.union(current) });
      }
      // A manager whose fields came out as they were keeps its set (and the set's cached FieldsV1).
      for (const [mid, m] of next) {
        const before = managers.get(mid)?.set;
        if (before !== undefined && before !== m.set && m.set.sameAs(before)) next.set(mid, { ...m, set: before });
      }
      return withManagedFields(nv, next, managers === liveManaged ? live?.metadata?.managedFields : undefined);
    } catch (err) {
      if (!(err instanceof TypedValueError)) throw err;
      return withManagedFields(nv, new Map());
    }
  }

  /**
   * Server-side apply of `config` by `manager` (`FieldManager.Apply`): `live` is the stored object, undefined when
   * the apply creates it. Throws 400 for a configuration of another kind (`invalid object type: /v1, Kind=Secret`),
   * one carrying `metadata.managedFields`, or one that does not fit the schema; 409 `Conflict` with one
   * `FieldManagerConflict` cause per field when another manager owns a field this apply changes and `force` is
   * false. Returns the object to store: the live object itself (with possibly updated ownership) when nothing
   * changed.
   */
  apply(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean): KubeObject {
    this.checkType(config);
    if (config.metadata?.managedFields !== undefined) throw newBadRequest("metadata.managedFields must be nil");
    const managers = live === undefined ? new Map() : decodeOrEmpty(live.metadata?.managedFields);
    const lv = live === undefined ? {} : withoutManagedFields(live);
    const entry = this.id(manager, "Apply");
    const id = managerIdentifier(entry);
    let nv: unknown;
    let applied: FieldSet;
    try {
      nv = merge(lv, config, this.opts.schema);
      applied = this.ignore(toFieldSet(config, this.opts.schema));
    } catch (err) {
      if (!(err instanceof TypedValueError)) throw err;
      throw newBadRequest(`failed to create typed patch object (${this.gvkString()}): ${err.message}`);
    }
    const last = managers.get(id);
    managers.set(id, { ...entry, time: last?.time, set: applied });
    if (last !== undefined && !last.set.isEmpty()) nv = this.prune(nv, this.ignore(last.set), managers);
    const { managers: next } = this.reconcile(lv, nv, managers, id, force);
    const mine = next.get(id);
    if (mine !== undefined) next.set(id, { ...mine, set: mine.set.difference(STRIPPED) });
    const changed = !valuesEqual(lv, nv);
    if (changed && next.has(id)) next.set(id, { ...next.get(id)!, time: this.now() });
    return withManagedFields((changed ? nv : lv) as Record<string, unknown>, next);
  }

  /**
   * `Updater.prune`: removes from `merged` the fields the applier applied last time and not this time, unless some
   * manager (the applier's new configuration included) still owns them. Declared struct fields count as owned when
   * anything below them is.
   */
  private prune(merged: unknown, last: FieldSet, managers: ManagedFields): unknown {
    let owned = new FieldSet();
    for (const m of managers.values()) owned = owned.union(m.set);
    const schema = this.opts.schema;
    const toRemove = ensureNamedFieldsAreMembers(last, schema).difference(ensureNamedFieldsAreMembers(owned, schema));
    return toRemove.isEmpty() ? merged : removeItems(merged, toRemove, schema);
  }

  private gvkString(): string {
    return `${this.opts.group}/${this.opts.version}, Kind=${this.opts.kind}`;
  }

  /** The version check of apply: the configuration must name this endpoint's group, version and kind. */
  private checkType(config: KubeObject): void {
    const apiVersion = typeof config.apiVersion === "string" ? config.apiVersion : "";
    const kind = typeof config.kind === "string" ? config.kind : "";
    if (apiVersion === this.apiVersion && kind === this.opts.kind) return;
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    throw newBadRequest(`invalid object type: ${group}/${version}, Kind=${kind}`);
  }
}
