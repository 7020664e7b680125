import { KeyError, type KeyFunc } from "../store.js";
import { describeValue } from "./meta-accessor.js";

/**
 * `keyFunc(obj)`, with any failure as a {@link KeyError} naming the object: a KeyError passes unchanged,
 * anything else becomes `couldn't create key for object …: <reason>` with the original as `cause`.
 */
export function computeKey(keyFunc: KeyFunc, obj: unknown): string {
  try {
    return keyFunc(obj);
  } catch (err) {
    if (err instanceof KeyError) throw err;
    const reason = err instanceof Error ? err.message : describeValue(err);
    const wrapped = new KeyError(`couldn't create key for object ${describeValue(obj)}: ${reason}`, obj);
    wrapped.cause = err;
    throw wrapped;
  }
}
