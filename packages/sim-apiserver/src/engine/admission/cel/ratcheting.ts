import { jsonEqual } from "../../object-util.js";
import type { StructuralSchema } from "../custom-resource-schema.js";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The list-type extensions of a schema node (kept out of {@link StructuralSchema}, which validation reads). */
interface ListTyped {
  readonly "x-kubernetes-list-type"?: string;
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
}

/**
 * The old item an item of a `x-kubernetes-list-type: map` list corresponds to: the one with the same values of
 * `x-kubernetes-list-map-keys` (apiextensions' `makeMapList`). Items of other lists (atomic, set) correlate with
 * nothing, as upstream's: neither `oldSelf` nor ratcheting reaches into them.
 */
export function correlatedListItem(schema: StructuralSchema, oldList: unknown, item: unknown): unknown {
  const s = schema as ListTyped;
  const keys = s["x-kubernetes-list-map-keys"];
  if (s["x-kubernetes-list-type"] !== "map" || keys === undefined || keys.length === 0) return undefined;
  if (!Array.isArray(oldList) || !isObject(item)) return undefined;
  return oldList.find((o) => isObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
}

/** One node of the new object and its old value (apiserver/pkg/cel/common `CorrelatedObject`). */
class Correlated {
  private equal: boolean | undefined;
  constructor(
    readonly value: unknown,
    readonly old: unknown,
    readonly schema: StructuralSchema | undefined,
  ) {}

  /** `CachedDeepEqual`: whether the node is unchanged. */
  unchanged(): boolean {
    this.equal ??= jsonEqual(this.value, this.old);
    return this.equal;
  }

  /** `Key`: the field's node, when both the new and the old object have it. */
  key(field: string): Correlated | undefined {
    if (!isObject(this.value) || !isObject(this.old)) return undefined;
    if (!Object.hasOwn(this.value, field) || !Object.hasOwn(this.old, field)) return undefined;
    const ap = this.schema?.additionalProperties;
    const schema = this.schema?.properties?.[field] ?? (typeof ap === "object" ? ap : undefined);
    return new Correlated(this.value[field], this.old[field], schema);
  }

  /** `Index`: the item's node, for map-type lists only ({@link correlatedListItem}). */
  index(i: number): Correlated | undefined {
    const items = this.schema?.items;
    if (!Array.isArray(this.value) || items === undefined || this.schema === undefined) return undefined;
    const old = correlatedListItem(this.schema, this.old, this.value[i]);
    return old === undefined ? undefined : new Correlated(this.value[i], old, items);
  }
}

/**
 * CRD validation ratcheting for `x-kubernetes-validations` (the `CRDValidationRatcheting` gate, beta and on from
 * v1.28, GA in v1.30; apiextensions' `schema/cel/validation.go` `ratchetingOptions`): on an update, a rule that is
 * not a transition rule and fails on a node that is unchanged — the node itself when it correlates with an old
 * value, else its nearest correlatable ancestor — is not an error but a warning, so an object stored before a rule
 * was added can still be updated elsewhere. The root correlates with the stored object; `apiVersion` and `kind` never
 * ratchet; list items correlate only in map-type lists.
 */
export class Ratcheting {
  private constructor(
    private readonly current: Correlated | undefined,
    private readonly nearestParent: Correlated | undefined,
  ) {}

  /** The root's options: nothing ratchets on a create (`old` absent). */
  static root(value: unknown, old: unknown, schema: StructuralSchema | undefined): Ratcheting {
    return new Ratcheting(old === undefined ? undefined : new Correlated(value, old, schema), undefined);
  }

  /** `shouldRatchetError`. */
  shouldRatchet(): boolean {
    return (this.current ?? this.nearestParent)?.unchanged() ?? false;
  }

  /** The options of the field `field` of this node. */
  key(field: string): Ratcheting {
    if (this.current === undefined) return this;
    if (this.nearestParent === undefined && (field === "apiVersion" || field === "kind"))
      return new Ratcheting(undefined, undefined);
    return new Ratcheting(this.current.key(field), this.current);
  }

  /** The options of item `i` of this node. */
  index(i: number): Ratcheting {
    if (this.current === undefined) return this;
    return new Ratcheting(this.current.index(i), this.current);
  }
}
