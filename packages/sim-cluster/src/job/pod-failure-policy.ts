import type { Pod } from "@informer-ts/client";

/** `batch/v1` `PodFailurePolicyOnExitCodesRequirement`. */
export interface OnExitCodes {
  readonly containerName?: string;
  readonly operator: "In" | "NotIn";
  readonly values: readonly number[];
}

/** `batch/v1` `PodFailurePolicyOnPodConditionsPattern`. */
export interface OnPodCondition {
  readonly type: string;
  /** Default `True`. */
  readonly status?: string;
}

/** `batch/v1` `PodFailurePolicyRule`. */
export interface PodFailurePolicyRule {
  readonly action: "FailJob" | "FailIndex" | "Ignore" | "Count";
  readonly onExitCodes?: OnExitCodes;
  readonly onPodConditions?: readonly OnPodCondition[];
}

/** What {@link matchPodFailurePolicy} decided for one failed pod. */
export interface PodFailurePolicyMatch {
  /** Whether the failure counts towards `backoffLimit` (false for `Ignore`). */
  readonly countFailed: boolean;
  /** Set when a `FailJob` rule matched: the `Failed` condition's message. */
  readonly failJobMessage?: string;
  /** The action of the rule that matched, if any. */
  readonly action?: PodFailurePolicyRule["action"];
}

interface Terminated {
  readonly name: string;
  readonly exitCode: number;
}

function terminatedContainers(pod: Pod): Terminated[] {
  const st = pod.status as
    | {
        initContainerStatuses?: { name?: string; state?: { terminated?: { exitCode?: number } } }[];
        containerStatuses?: { name?: string; state?: { terminated?: { exitCode?: number } } }[];
      }
    | undefined;
  const out: Terminated[] = [];
  for (const cs of [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? [])]) {
    const code = cs?.state?.terminated?.exitCode;
    if (typeof code === "number") out.push({ name: cs.name ?? "", exitCode: code });
  }
  return out;
}

function matchOnExitCodes(pod: Pod, req: OnExitCodes): Terminated | undefined {
  for (const c of terminatedContainers(pod)) {
    if (c.exitCode === 0) continue;
    if (req.containerName !== undefined && req.containerName !== c.name) continue;
    const listed = req.values.includes(c.exitCode);
    if (req.operator === "In" ? listed : !listed) return c;
  }
  return undefined;
}

function matchOnPodConditions(pod: Pod, patterns: readonly OnPodCondition[]): OnPodCondition | undefined {
  const conds = (pod.status?.conditions ?? []) as { type?: string; status?: string }[];
  for (const p of patterns) {
    if (conds.some((c) => c.type === p.type && c.status === (p.status ?? "True"))) return p;
  }
  return undefined;
}

/**
 * `matchPodFailurePolicy` of `pkg/controller/job/pod_failure_policy.go`: the first rule (in order) that matches a
 * failed pod decides — `FailJob` fails the Job with a message naming the container and exit code (or the condition)
 * and the rule's index, `Ignore` does not count the failure, `Count` counts it as without a policy. A rule matches on
 * exit codes when a container (init containers included) terminated with a non-zero code that is (`In`) or is not
 * (`NotIn`) listed, restricted to `containerName` when given; on pod conditions when the pod has a condition of the
 * pattern's type and status. No rule matching: the failure counts. `FailIndex` (indexed Jobs) counts here.
 */
export function matchPodFailurePolicy(
  rules: readonly PodFailurePolicyRule[] | undefined,
  pod: Pod,
): PodFailurePolicyMatch {
  const podKey = `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
  for (const [i, rule] of (rules ?? []).entries()) {
    let message: string | undefined;
    if (rule.onExitCodes !== undefined) {
      const c = matchOnExitCodes(pod, rule.onExitCodes);
      if (c === undefined) continue;
      message = `Container ${c.name} for pod ${podKey} failed with exit code ${c.exitCode} matching ${rule.action} rule at index ${i}`;
    } else if (rule.onPodConditions !== undefined) {
      const p = matchOnPodConditions(pod, rule.onPodConditions);
      if (p === undefined) continue;
      message = `Pod ${podKey} has condition ${p.type} matching ${rule.action} rule at index ${i}`;
    } else continue;
    switch (rule.action) {
      case "FailJob":
        return { countFailed: true, failJobMessage: message, action: "FailJob" };
      case "Ignore":
        return { countFailed: false, action: "Ignore" };
      default:
        return { countFailed: true, action: rule.action };
    }
  }
  return { countFailed: true };
}
