// Cases of pkg/controller/job/pod_failure_policy_test.go's TestMatchPodFailurePolicy (non-indexed), as a table.
import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { matchPodFailurePolicy, type PodFailurePolicyRule } from "./pod-failure-policy.js";

function failedPod(
  containers: { name: string; exitCode: number }[],
  conditions: { type: string; status: string }[] = [],
): Pod {
  return {
    metadata: { namespace: "default", name: "mypod" },
    status: {
      phase: "Failed",
      conditions,
      containerStatuses: containers.map((c) => ({ name: c.name, state: { terminated: { exitCode: c.exitCode } } })),
    },
  } as unknown as Pod;
}

const rule = (r: PodFailurePolicyRule) => r;

describe("TestMatchPodFailurePolicy (pkg/controller/job/pod_failure_policy_test.go)", () => {
  const cases: {
    name: string;
    rules: PodFailurePolicyRule[];
    pod: Pod;
    want: { countFailed: boolean; failJobMessage?: string; action?: string };
  }[] = [
    {
      name: "unknown action for rule matching by exit codes - skip rule with unknown action / no rules: count",
      rules: [],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: { countFailed: true },
    },
    {
      name: "FailJob rule with exit code In matches",
      rules: [rule({ action: "FailJob", onExitCodes: { operator: "In", values: [1, 2, 3] } })],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: {
        countFailed: true,
        action: "FailJob",
        failJobMessage:
          "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 0",
      },
    },
    {
      name: "FailJob rule with exit code In does not match",
      rules: [rule({ action: "FailJob", onExitCodes: { operator: "In", values: [1, 2, 3] } })],
      pod: failedPod([{ name: "main-container", exitCode: 4 }]),
      want: { countFailed: true },
    },
    {
      name: "ignore rule matched for exit codes",
      rules: [rule({ action: "Ignore", onExitCodes: { operator: "In", values: [1, 2, 3] } })],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: { countFailed: false, action: "Ignore" },
    },
    {
      name: "FailJob rule with exit code NotIn matches",
      rules: [rule({ action: "FailJob", onExitCodes: { operator: "NotIn", values: [1, 2, 3] } })],
      pod: failedPod([{ name: "main-container", exitCode: 42 }]),
      want: {
        countFailed: true,
        action: "FailJob",
        failJobMessage:
          "Container main-container for pod default/mypod failed with exit code 42 matching FailJob rule at index 0",
      },
    },
    {
      name: "exit code 0 never matches NotIn",
      rules: [rule({ action: "FailJob", onExitCodes: { operator: "NotIn", values: [1] } })],
      pod: failedPod([{ name: "main-container", exitCode: 0 }]),
      want: { countFailed: true },
    },
    {
      name: "container name restricts the match",
      rules: [rule({ action: "FailJob", onExitCodes: { containerName: "other", operator: "In", values: [2] } })],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: { countFailed: true },
    },
    {
      name: "first matching rule decides: Count before FailJob",
      rules: [
        rule({ action: "Count", onExitCodes: { operator: "In", values: [2] } }),
        rule({ action: "FailJob", onExitCodes: { operator: "In", values: [2] } }),
      ],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: { countFailed: true, action: "Count" },
    },
    {
      name: "FailJob rule on the second index",
      rules: [
        rule({ action: "Ignore", onExitCodes: { operator: "In", values: [10] } }),
        rule({ action: "FailJob", onExitCodes: { operator: "In", values: [2] } }),
      ],
      pod: failedPod([{ name: "main-container", exitCode: 2 }]),
      want: {
        countFailed: true,
        action: "FailJob",
        failJobMessage:
          "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1",
      },
    },
    {
      name: "ignore rule matched for pod conditions (DisruptionTarget)",
      rules: [rule({ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] })],
      pod: failedPod([{ name: "main-container", exitCode: 137 }], [{ type: "DisruptionTarget", status: "True" }]),
      want: { countFailed: false, action: "Ignore" },
    },
    {
      name: "FailJob rule matched for pod conditions",
      rules: [rule({ action: "FailJob", onPodConditions: [{ type: "DisruptionTarget" }] })],
      pod: failedPod([{ name: "main-container", exitCode: 137 }], [{ type: "DisruptionTarget", status: "True" }]),
      want: {
        countFailed: true,
        action: "FailJob",
        failJobMessage: "Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0",
      },
    },
    {
      name: "pod condition of another status does not match",
      rules: [rule({ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] })],
      pod: failedPod([{ name: "main-container", exitCode: 137 }], [{ type: "DisruptionTarget", status: "False" }]),
      want: { countFailed: true },
    },
  ];
  it.each(cases)("$name", ({ rules, pod, want }) => {
    expect(matchPodFailurePolicy(rules, pod)).toEqual(want);
  });
});
