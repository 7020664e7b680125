import { type Interval, intervalsTotal, parseIndexesFromString } from "./indexed-job-utils.js";

/**
 * A Job's `spec.successPolicy` (`pkg/controller/job/success_policy.go`, GA in v1.33): an Indexed Job succeeds early
 * once one rule matches its succeeded indexes — the Job controller then sets `SuccessCriteriaMet` (reason
 * `SuccessPolicy`), deletes the pods still running, and sets `Complete` once none is left.
 */

/** One `successPolicy` rule: `succeededIndexes` (an interval list like `"0-2,5"`) and/or `succeededCount`. */
export interface SuccessPolicyRule {
  readonly succeededIndexes?: string;
  readonly succeededCount?: number;
}

/** `spec.successPolicy`. */
export interface SuccessPolicy {
  readonly rules?: readonly SuccessPolicyRule[];
}

/** The `JobReasonSuccessPolicy` of the `SuccessCriteriaMet` and `Complete` conditions a matched rule sets. */
export const SUCCESS_POLICY_REASON = "SuccessPolicy";

/**
 * `matchSuccessPolicy`: the message (`Matched rules at index N`, the first rule that matches) when `succeeded` (the
 * Job's succeeded indexes, below `completions`) meets a rule of `policy`, else `undefined`. A rule with
 * `succeededIndexes` matches when all of them succeeded or, with `succeededCount`, at least that many of them; a
 * rule with only `succeededCount` when that many indexes succeeded. A rule whose `succeededIndexes` parse to nothing
 * is skipped (`onCorrupt` hears of unparseable parts).
 */
export function matchSuccessPolicy(
  policy: SuccessPolicy | undefined,
  completions: number,
  succeeded: readonly Interval[],
  onCorrupt?: (part: string) => void,
): string | undefined {
  if (policy === undefined || succeeded.length === 0) return undefined;
  const rules = policy.rules ?? [];
  for (const [i, rule] of rules.entries()) {
    if (rule.succeededIndexes !== undefined) {
      const required = parseIndexesFromString(rule.succeededIndexes, completions, onCorrupt);
      if (required.length === 0) continue;
      if (matchSucceededIndexesRule(required, succeeded, rule.succeededCount)) return `Matched rules at index ${i}`;
    } else if (rule.succeededCount !== undefined && intervalsTotal(succeeded) >= rule.succeededCount) {
      return `Matched rules at index ${i}`;
    }
  }
  return undefined;
}

/**
 * `matchSucceededIndexesRule`: how many of the rule's indexes succeeded (one merge-like pass over both sorted
 * interval lists) — all of them, or at least `succeededCount`.
 */
export function matchSucceededIndexesRule(
  rule: readonly Interval[],
  succeeded: readonly Interval[],
  succeededCount: number | undefined,
): boolean {
  let contained = 0;
  let r = 0;
  let s = 0;
  while (r < rule.length && s < succeeded.length) {
    const a = rule[r]!;
    const b = succeeded[s]!;
    const overlap = Math.min(a.last, b.last) - Math.max(a.first, b.first) + 1;
    if (overlap > 0) contained += overlap;
    if (b.last < a.last) s++;
    else if (b.last > a.last) r++;
    else {
      s++;
      r++;
    }
  }
  return contained === intervalsTotal(rule) || (succeededCount !== undefined && contained >= succeededCount);
}
