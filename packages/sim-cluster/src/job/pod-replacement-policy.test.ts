// Cases after pkg/controller/job/job_controller_test.go's pod replacement policy cases (TestSyncJobPastDeadline's
// neighbours with podReplacementPolicy, isPodFailed and onlyReplaceFailedPods), as tables.
import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { isPodFailed, onlyReplaceFailedPods } from "./pod-replacement-policy.js";

const pod = (phase: string, deleting: boolean): Pod =>
  ({
    metadata: { name: "p", ...(deleting && { deletionTimestamp: "2026-01-01T00:00:00Z" }) },
    status: { phase },
  }) as unknown as Pod;

const policy = { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [42] } }] };

describe("onlyReplaceFailedPods", () => {
  it.each([
    { name: "no policy: TerminatingOrFailed", spec: {}, want: false },
    { name: "TerminatingOrFailed", spec: { podReplacementPolicy: "TerminatingOrFailed" }, want: false },
    { name: "Failed", spec: { podReplacementPolicy: "Failed" }, want: true },
    { name: "a podFailurePolicy defaults to Failed", spec: { podFailurePolicy: policy }, want: true },
  ])("$name", ({ spec, want }) => {
    expect(onlyReplaceFailedPods(spec)).toBe(want);
  });
});

describe("isPodFailed", () => {
  it.each([
    { name: "failed pod", pod: pod("Failed", false), spec: {}, finishing: false, want: true },
    {
      name: "failed pod, Failed policy",
      pod: pod("Failed", false),
      spec: { podReplacementPolicy: "Failed" },
      finishing: false,
      want: true,
    },
    { name: "running pod", pod: pod("Running", false), spec: {}, finishing: false, want: false },
    { name: "terminating pod: failed at once", pod: pod("Running", true), spec: {}, finishing: false, want: true },
    { name: "terminating pending pod", pod: pod("Pending", true), spec: {}, finishing: false, want: true },
    { name: "terminating succeeded pod", pod: pod("Succeeded", true), spec: {}, finishing: false, want: false },
    {
      name: "terminating pod, Failed policy: not yet",
      pod: pod("Running", true),
      spec: { podReplacementPolicy: "Failed" },
      finishing: false,
      want: false,
    },
    {
      name: "terminating pod, podFailurePolicy: not yet",
      pod: pod("Running", true),
      spec: { podFailurePolicy: policy },
      finishing: false,
      want: false,
    },
    {
      name: "terminating pod, Failed policy, Job finishing: every pod left counts",
      pod: pod("Running", true),
      spec: { podReplacementPolicy: "Failed" },
      finishing: true,
      want: true,
    },
  ])("$name", ({ pod: p, spec, finishing, want }) => {
    expect(isPodFailed(p, spec, finishing)).toBe(want);
  });
});
