// Engine tests that expect a write to be refused: the Status the refusal carries.
import { type Status, statusOf } from "@informer-ts/apimachinery";

/** Awaits `p` and returns the Status it was rejected with; throws if it resolves or fails with a non-Status error. */
export async function failure(p: Promise<unknown>): Promise<Status> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    if (s === undefined) throw err;
    return s;
  }
  throw new Error("expected a failure");
}
