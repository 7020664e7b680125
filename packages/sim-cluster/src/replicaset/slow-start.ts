/** `controller.SlowStartInitialBatchSize`: the first batch of a slow start. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * `slowStartBatch` (`pkg/controller/replicaset/replica_set.go`): calls `fn` `count` times in batches that double in
 * size (1, 2, 4, … from `initialBatchSize`), the calls of a batch concurrently; stops after the first batch with a
 * failure, so a quota or admission error costs one call rather than `count`. Resolves with the number of successful
 * calls and the first error, if any.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    successes += batch - failed.length;
    if (failed.length > 0) return { successes, error: failed[0]!.reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}
