// The demo's expectations, checked against what the informer's reflector reported (its event stream): each fault's
// outcome and the final verdict. Pure functions over recorded events, so they are tested without a server or a clock.
import type { ReflectorEvent } from "@informer-ts/cache";

/** One checked expectation of the demo: `ok`, and a one-line account of what was observed. */
export interface DemoCheck {
  /** Which expectation: `rewatch-after-drop`, `relist-after-reinit` or `converged`. */
  readonly name: string;
  readonly ok: boolean;
  /** What was observed, e.g. `re-watched from RV 3620, no relist`. */
  readonly detail: string;
}

/** `✓ detail` or `✗ detail`: how the demo prints a check. */
export function formatCheck(check: DemoCheck): string {
  return `${check.ok ? "✓" : "✗"} ${check.detail}`;
}

const objects = (n: number): string => `${n} object${n === 1 ? "" : "s"}`;

const rvNumber = (rv: string): number | undefined => (/^[0-9]+$/.test(rv) ? Number(rv) : undefined);

const isRelistStart = (e: ReflectorEvent): boolean =>
  e.type === "relist" || e.type === "list-start" || e.type === "watch-list-start";

function relistWord(window: readonly ReflectorEvent[]): string {
  const causes = window.flatMap((e) => (e.type === "relist" ? [e.cause] : []));
  return causes.length === 0 ? "relisted" : `relisted (${causes.join(", ")})`;
}

/**
 * Fault 1 (every watch dropped): the reflector must open a new watch from a resourceVersion at least the one it had
 * when the connection dropped (`rvAtFault`), without listing again. `window` is what the reflector reported from
 * the fault until the next one (or the end).
 */
export function checkRewatchAfterDrop(
  window: readonly ReflectorEvent[],
  rvAtFault: string,
  dropped: number,
): DemoCheck {
  const name = "rewatch-after-drop";
  if (dropped === 0) return { name, ok: false, detail: "no watch was open to drop: nothing to observe" };
  const first = window.find((e) => e.type === "watch-start" || isRelistStart(e));
  if (first === undefined) {
    return { name, ok: false, detail: `no re-watch seen after the drop (last RV ${rvAtFault})` };
  }
  if (first.type !== "watch-start") {
    return { name, ok: false, detail: `${relistWord(window)} instead of re-watching from RV ${rvAtFault}` };
  }
  const rv = first.resourceVersion;
  const got = rvNumber(rv);
  const had = rvNumber(rvAtFault);
  if (got === undefined || got === 0) {
    return { name, ok: false, detail: `re-watched from RV "${rv}" (from scratch), not from the last RV ${rvAtFault}` };
  }
  if (had !== undefined && got < had) {
    return { name, ok: false, detail: `re-watched from RV ${rv}, older than the last RV seen (${rvAtFault})` };
  }
  if (window.some(isRelistStart)) {
    return { name, ok: false, detail: `re-watched from RV ${rv}, but then ${relistWord(window)}` };
  }
  return { name, ok: true, detail: `re-watched from RV ${rv}, no relist` };
}

/**
 * Fault 2 (watch cache re-initialized, unready for a while): the apiserver must have answered the informer's
 * requests with 429 while the cache was unready (`tooManyRequests`, counted by the server: the client absorbs a 429
 * by waiting its Retry-After and retrying, as client-go's does, so the reflector may never see one), then the
 * reflector must get 410 (Expired) for its old resourceVersion and relist exactly once, because of that 410, and
 * finish the relist. `window` is what the reflector reported from the fault to the end of the run.
 */
export function checkRelistAfterReinit(window: readonly ReflectorEvent[], tooManyRequests: number): DemoCheck {
  const name = "relist-after-reinit";
  const expired = window.some((e) => e.type === "error" && e.error.code === 410);
  const relists = window.flatMap((e, i) => (e.type === "relist" ? [{ cause: e.cause, at: i }] : []));
  const problems: string[] = [];
  if (tooManyRequests === 0) problems.push("no 429 while the cache was unready");
  if (!expired) problems.push("no 410 for the old RV");
  if (relists.length !== 1) {
    const causes = relists.map((r) => r.cause).join(", ");
    problems.push(relists.length === 0 ? "no relist" : `${relists.length} relists (${causes}), not exactly one`);
  } else if (relists[0]?.cause !== "expired") {
    problems.push(`the relist was for ${relists[0]?.cause}, not for the 410`);
  }
  const relistAt = relists[0]?.at ?? window.length;
  const done = window.slice(relistAt).find((e) => e.type === "watch-list-done" || e.type === "list-done");
  if (relists.length > 0 && done === undefined) problems.push("the relist did not finish");
  if (problems.length > 0) {
    const seen = `seen: ${tooManyRequests}× 429, ${expired ? "a" : "no"} 410, ${relists.length} relist(s)`;
    return { name, ok: false, detail: `${problems.join("; ")} (${seen})` };
  }
  const how =
    done === undefined
      ? ""
      : ` (a ${done.type === "watch-list-done" ? "watch-list" : "list"} of ${objects(done.items)})`;
  return { name, ok: true, detail: `${tooManyRequests}× 429 while unready, then 410 and exactly one relist${how}` };
}

/** The verdict: the informer's store equals the server's storage (`mismatch` undefined), key by key and RV by RV. */
export function checkConverged(storeSize: number, serverSize: number, mismatch: string | undefined): DemoCheck {
  return mismatch === undefined
    ? {
        name: "converged",
        ok: true,
        detail: `converged: the store holds ${objects(storeSize)}, equal to the apiserver's (same keys, same resourceVersions)`,
      }
    : {
        name: "converged",
        ok: false,
        detail: `NOT converged: store ${storeSize} vs apiserver ${serverSize} objects; first difference: ${mismatch}`,
      };
}
