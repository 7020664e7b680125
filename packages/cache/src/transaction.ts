import type { DeletedFinalStateUnknownLike } from "./store.js";

/** The kind of one write in a {@link Transaction} (`cache.TransactionType`). */
export type TransactionType = "add" | "update" | "delete";

/**
 * One write of a batch applied by `transaction(...)` (`cache.Transaction`). A `delete` may carry a
 * tombstone (`DeletedFinalStateUnknown`).
 */
export interface Transaction<T> {
  readonly type: TransactionType;
  readonly object: T | DeletedFinalStateUnknownLike<T>;
}

/** A {@link Transaction} whose store key is already known (`cache.ThreadSafeStoreTransaction`). */
export interface ThreadSafeStoreTransaction<T> extends Transaction<T> {
  readonly key: string;
}

/**
 * Some transactions of a batch could not be applied because their key could not be computed
 * (`cache.TransactionError`). Every other transaction **was** applied: `successfulIndices` lists their
 * positions in the input, in order; `errors` holds one error per failed transaction, in input order.
 */
export class TransactionError extends Error {
  override readonly name = "TransactionError";

  constructor(
    readonly successfulIndices: readonly number[],
    readonly totalTransactions: number,
    readonly errors: readonly Error[],
  ) {
    super(
      `failed to execute (${totalTransactions - successfulIndices.length}/${totalTransactions}) transactions failed due to: [${errors
        .map((e) => e.message)
        .join("; ")}]`,
    );
  }
}

/** A store that can apply several writes in one synchronous turn (`cache.TransactionStore`). */
export interface TransactionStore<T> {
  /**
   * Applies every transaction whose key can be computed, in order, in one synchronous turn; returns a
   * {@link TransactionError} describing the others, or `undefined` when all were applied.
   */
  transaction(txns: readonly Transaction<T>[]): TransactionError | undefined;
}
