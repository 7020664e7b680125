// Cases after third_party/forked/golang/expansion's TestMapReference / TestMapping (the kubelet's $(VAR) expansion).
import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { containerEnv, expandEnv } from "./container-env.js";

const pod = {
  metadata: {
    name: "p-0",
    namespace: "ns",
    uid: "u1",
    labels: { "batch.kubernetes.io/job-completion-index": "3" },
    annotations: { a: "x" },
  },
  spec: {
    nodeName: "node-1",
    containers: [
      {
        name: "c",
        env: [
          { name: "DIR", value: "/data" },
          {
            name: "JOB_COMPLETION_INDEX",
            valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
          },
          { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
          { name: "ANN", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['a']" } } },
          { name: "SECRET", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
          { name: "DIR", value: "/later" },
        ],
      },
    ],
  },
} as unknown as Pod;

describe("containerEnv", () => {
  it("resolves values and downward-API field references, later entries winning", () => {
    expect(Object.fromEntries(containerEnv(pod))).toEqual({
      DIR: "/later",
      JOB_COMPLETION_INDEX: "3",
      NODE: "node-1",
      ANN: "x",
    });
  });
});

describe("expandEnv", () => {
  const env = new Map([
    ["VAR_A", "A"],
    ["VAR_B", "B"],
    ["VAR_EMPTY", ""],
  ]);
  it.each([
    { input: "$(VAR_A)", want: "A" },
    { input: "___$(VAR_B)___", want: "___B___" },
    { input: "$(VAR_A)-$(VAR_A)", want: "A-A" },
    { input: "f-$(VAR_EMPTY)-", want: "f--" },
    { input: "$(VAR_DNE)", want: "$(VAR_DNE)" },
    { input: "$$(VAR_A)", want: "$(VAR_A)" },
    { input: "$$", want: "$" },
    { input: "$(VAR_A", want: "$(VAR_A" },
    { input: "no refs", want: "no refs" },
  ])("$input → $want", ({ input, want }) => {
    expect(expandEnv(input, env)).toBe(want);
  });
});
