// Cases of pkg/controller/job/indexed_job_utils_test.go (TestCalculateSucceededIndexes, TestIntervalsHaveIndex,
// TestFirstPendingIndexes, TestAppendDuplicatedIndexPodsForRemoval, TestPodGenerateNameWithIndex) as tables, then
// fast-check properties of the interval strings.
import type { Pod } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addCompletionIndexEnvVariables,
  calculateSucceededIndexes,
  duplicatedIndexPodsForRemoval,
  firstPendingIndexes,
  getCompletionIndex,
  type Interval,
  intervalsHave,
  intervalsToString,
  intervalsTotal,
  JOB_COMPLETION_INDEX_ANNOTATION,
  parseIndexesFromString,
  podGenerateNameWithIndex,
  withOrderedIndexes,
} from "./indexed-job-utils.js";

const NO_INDEX = "-";
type IndexPhase = [index: string, phase: string];

/** `hollowPodsWithIndexPhase`; each pod is told apart by its uid. */
function hollowPods(descs: readonly IndexPhase[]): Pod[] {
  return descs.map(
    ([index, phase], i) =>
      ({
        metadata: {
          uid: `p${i}`,
          ...(index !== NO_INDEX && { annotations: { [JOB_COMPLETION_INDEX_ANNOTATION]: index } }),
        },
        status: { phase },
      }) as Pod,
  );
}

/** `toIndexPhases`. */
function toIndexPhases(pods: readonly Pod[]): IndexPhase[] {
  return pods.map((p) => [
    p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? NO_INDEX,
    p.status?.phase ?? "",
  ]);
}

const iv = (first: number, last: number): Interval => ({ first, last });

describe("TestCalculateSucceededIndexes (indexed_job_utils_test.go)", () => {
  // The cases tracked with finalizers (upstream's only mode since 1.28), and those without previous indexes.
  const cases: {
    name: string;
    prev?: string;
    pods?: IndexPhase[];
    completions: number;
    wantStatus: Interval[];
    want: Interval[];
  }[] = [
    { name: "one index", pods: [["1", "Succeeded"]], completions: 2, wantStatus: [], want: [iv(1, 1)] },
    {
      name: "two separate",
      pods: [
        ["2", "Failed"],
        ["5", "Succeeded"],
        ["5", "Succeeded"],
        ["10", "Failed"],
        ["10", "Succeeded"],
      ],
      completions: 11,
      wantStatus: [],
      want: [iv(5, 5), iv(10, 10)],
    },
    {
      name: "two intervals",
      pods: [
        ["0", "Running"],
        ["1", "Pending"],
        ["2", "Succeeded"],
        ["3", "Succeeded"],
        ["5", "Succeeded"],
        ["6", "Succeeded"],
        ["7", "Succeeded"],
      ],
      completions: 8,
      wantStatus: [],
      want: [iv(2, 3), iv(5, 7)],
    },
    {
      name: "one index and one interval",
      pods: [
        ["0", "Succeeded"],
        ["1", "Failed"],
        ["2", "Succeeded"],
        ["3", "Succeeded"],
        ["4", "Succeeded"],
        ["5", "Succeeded"],
        [NO_INDEX, "Succeeded"],
        ["-2", "Succeeded"],
      ],
      completions: 6,
      wantStatus: [],
      want: [iv(0, 0), iv(2, 5)],
    },
    {
      name: "out of range",
      pods: [
        ["0", "Succeeded"],
        ["1", "Succeeded"],
        ["2", "Succeeded"],
        ["3", "Failed"],
        ["4", "Succeeded"],
        ["5", "Succeeded"],
        [NO_INDEX, "Succeeded"],
        ["-2", "Succeeded"],
      ],
      completions: 5,
      wantStatus: [],
      want: [iv(0, 2), iv(4, 4)],
    },
    {
      name: "prev interval out of range",
      prev: "0-5,8-10",
      completions: 8,
      wantStatus: [iv(0, 5)],
      want: [iv(0, 5)],
    },
    {
      name: "prev interval partially out of range",
      prev: "0-5,8-10",
      completions: 10,
      wantStatus: [iv(0, 5), iv(8, 9)],
      want: [iv(0, 5), iv(8, 9)],
    },
    {
      name: "prev and new separate",
      prev: "0,4,5,10-12",
      pods: [
        ["2", "Succeeded"],
        ["7", "Succeeded"],
        ["8", "Succeeded"],
      ],
      completions: 13,
      wantStatus: [iv(0, 0), iv(4, 5), iv(10, 12)],
      want: [iv(0, 0), iv(2, 2), iv(4, 5), iv(7, 8), iv(10, 12)],
    },
    {
      name: "prev between new",
      prev: "3,4,6",
      pods: [
        ["2", "Succeeded"],
        ["7", "Succeeded"],
        ["8", "Succeeded"],
      ],
      completions: 9,
      wantStatus: [iv(3, 4), iv(6, 6)],
      want: [iv(2, 4), iv(6, 8)],
    },
    {
      name: "new between prev",
      prev: "2,7,8",
      pods: [
        ["3", "Succeeded"],
        ["4", "Succeeded"],
        ["6", "Succeeded"],
      ],
      completions: 9,
      wantStatus: [iv(2, 2), iv(7, 8)],
      want: [iv(2, 4), iv(6, 8)],
    },
    {
      name: "new within prev",
      prev: "2-7",
      pods: [
        ["0", "Succeeded"],
        ["3", "Succeeded"],
        ["5", "Succeeded"],
        ["9", "Succeeded"],
      ],
      completions: 10,
      wantStatus: [iv(2, 7)],
      want: [iv(0, 0), iv(2, 7), iv(9, 9)],
    },
    {
      name: "corrupted interval",
      prev: "0,1-foo,bar",
      pods: [["3", "Succeeded"]],
      completions: 4,
      wantStatus: [iv(0, 0)],
      want: [iv(0, 0), iv(3, 3)],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const corrupt: string[] = [];
      const got = calculateSucceededIndexes(
        tc.prev,
        tc.completions,
        hollowPods(tc.pods ?? []),
        () => false,
        (part) => corrupt.push(part),
      );
      expect(got.prev).toEqual(tc.wantStatus);
      expect(got.result).toEqual(tc.want);
      if (tc.name === "corrupted interval") expect(corrupt).toEqual(["1-foo", "bar"]);
    });
  }

  it("a pod already counted (its finalizer gone) adds no index", () => {
    const pods = hollowPods([
      ["0", "Succeeded"],
      ["1", "Succeeded"],
    ]);
    const got = calculateSucceededIndexes(undefined, 3, pods, (p) => p.metadata?.uid === "p1");
    expect(got.result).toEqual([iv(0, 0)]);
  });
});

describe("TestIntervalsHaveIndex (indexed_job_utils_test.go)", () => {
  const cases: { name: string; intervals: Interval[]; index: number; want: boolean }[] = [
    { name: "empty", intervals: [], index: 4, want: false },
    { name: "before all", intervals: [iv(2, 4), iv(5, 7)], index: 1, want: false },
    { name: "after all", intervals: [iv(2, 4), iv(6, 8)], index: 9, want: false },
    { name: "in between", intervals: [iv(2, 4), iv(6, 8)], index: 5, want: false },
    { name: "in first", intervals: [iv(2, 4), iv(6, 8)], index: 2, want: true },
    { name: "in second", intervals: [iv(2, 4), iv(6, 8)], index: 8, want: true },
  ];
  for (const tc of cases) it(tc.name, () => expect(intervalsHave(tc.intervals, tc.index)).toBe(tc.want));
});

describe("TestFirstPendingIndexes (indexed_job_utils_test.go)", () => {
  const cases: {
    name: string;
    cnt: number;
    completions: number;
    active?: IndexPhase[];
    succeeded?: Interval[];
    want: number[];
  }[] = [
    { name: "cnt greater than completions", cnt: 5, completions: 3, want: [0, 1, 2] },
    { name: "cnt less than completions", cnt: 2, completions: 5, want: [0, 1] },
    {
      name: "first pods active",
      active: [
        ["0", "Running"],
        ["1", "Pending"],
      ],
      cnt: 3,
      completions: 10,
      want: [2, 3, 4],
    },
    {
      name: "last pods active or succeeded",
      active: [["6", "Pending"]],
      succeeded: [iv(4, 5)],
      cnt: 6,
      completions: 6,
      want: [0, 1, 2, 3],
    },
    {
      name: "mixed",
      active: [
        ["3", "Pending"],
        ["5", "Running"],
        ["8", "Pending"],
        [NO_INDEX, "Running"],
        ["-3", "Running"],
      ],
      succeeded: [iv(2, 4), iv(9, 9)],
      cnt: 5,
      completions: 20,
      want: [0, 1, 6, 7, 10],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(firstPendingIndexes(hollowPods(tc.active ?? []), tc.succeeded ?? [], tc.cnt, tc.completions)).toEqual(
        tc.want,
      );
    });
  }
});

describe("TestAppendDuplicatedIndexPodsForRemoval (indexed_job_utils_test.go)", () => {
  const cases: {
    name: string;
    pods: IndexPhase[];
    wantRm: IndexPhase[];
    wantLeft: IndexPhase[];
    completions: number;
  }[] = [
    {
      name: "all unique",
      pods: [
        [NO_INDEX, "Pending"],
        ["2", "Pending"],
        ["5", "Running"],
        ["6", "Running"],
      ],
      wantRm: [
        [NO_INDEX, "Pending"],
        ["6", "Running"],
      ],
      wantLeft: [
        ["2", "Pending"],
        ["5", "Running"],
      ],
      completions: 6,
    },
    {
      name: "all with index",
      pods: [
        ["5", "Pending"],
        ["0", "Running"],
        ["3", "Pending"],
        ["0", "Running"],
        ["3", "Running"],
        ["0", "Pending"],
        ["6", "Running"],
        ["6", "Pending"],
      ],
      wantRm: [
        ["0", "Pending"],
        ["0", "Running"],
        ["3", "Pending"],
        ["6", "Running"],
        ["6", "Pending"],
      ],
      wantLeft: [
        ["0", "Running"],
        ["3", "Running"],
        ["5", "Pending"],
      ],
      completions: 6,
    },
    {
      name: "mixed",
      pods: [
        [NO_INDEX, "Pending"],
        ["invalid", "Running"],
        ["-2", "Running"],
        ["0", "Pending"],
        ["1", "Pending"],
        ["1", "Pending"],
        ["1", "Running"],
      ],
      wantRm: [
        [NO_INDEX, "Pending"],
        ["invalid", "Running"],
        ["-2", "Running"],
        ["1", "Pending"],
        ["1", "Pending"],
      ],
      wantLeft: [
        ["0", "Pending"],
        ["1", "Running"],
      ],
      completions: 6,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const { rm, left } = duplicatedIndexPodsForRemoval(hollowPods(tc.pods), tc.completions, 0);
      expect(toIndexPhases(rm)).toEqual(tc.wantRm);
      expect(toIndexPhases(left)).toEqual(tc.wantLeft);
    });
  }
});

describe("TestPodGenerateNameWithIndex (indexed_job_utils_test.go)", () => {
  const cases = [
    { name: "short job name", job: "indexed-job", index: 1, want: "indexed-job-1-" },
    {
      name: "job name exceeds MaxGeneneratedNameLength",
      job: "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooo",
      index: 1,
      want: "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-",
    },
    {
      name: "job name with index suffix exceeds MaxGeneratedNameLength",
      job: "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhoo",
      index: 1,
      want: "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-",
    },
  ];
  for (const tc of cases) it(tc.name, () => expect(podGenerateNameWithIndex(tc.job, tc.index)).toBe(tc.want));
});

describe("getCompletionIndex and addCompletionIndexEnvVariables", () => {
  it("reads a non-negative integer annotation, else -1", () => {
    const at = (v?: string) =>
      getCompletionIndex({
        metadata: v === undefined ? {} : { annotations: { [JOB_COMPLETION_INDEX_ANNOTATION]: v } },
      });
    expect([at("3"), at("0"), at("-2"), at("x"), at(undefined)]).toEqual([3, 0, -1, -1, -1]);
  });

  it("gives every container JOB_COMPLETION_INDEX from the index label, unless it sets it", () => {
    const spec = {
      initContainers: [{ env: [{ name: "JOB_COMPLETION_INDEX", value: "7" }] }],
      containers: [{}, { env: [{ name: "A", value: "1" }] }],
    };
    addCompletionIndexEnvVariables(spec);
    const fromLabel = {
      name: "JOB_COMPLETION_INDEX",
      valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
    };
    expect(spec.initContainers[0]?.env).toEqual([{ name: "JOB_COMPLETION_INDEX", value: "7" }]);
    expect(spec.containers[0]).toEqual({ env: [fromLabel] });
    expect(spec.containers[1]?.env).toEqual([{ name: "A", value: "1" }, fromLabel]);
  });
});

describe("interval strings (properties)", () => {
  const indexSet = fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 40 });

  it("toString then parse gives back the same set of indexes; the intervals are ordered and apart", () => {
    fc.assert(
      fc.property(indexSet, (xs) => {
        const ivs = withOrderedIndexes(
          [],
          [...xs].sort((a, b) => a - b),
        );
        const back = parseIndexesFromString(intervalsToString(ivs), 61);
        expect(back).toEqual(ivs);
        expect(intervalsTotal(ivs)).toBe(xs.length);
        for (let i = 1; i < ivs.length; i++) expect(ivs[i]!.first).toBeGreaterThan(ivs[i - 1]!.last + 1);
        for (let ix = 0; ix <= 61; ix++) expect(intervalsHave(ivs, ix)).toBe(xs.includes(ix));
      }),
    );
  });

  it("firstPendingIndexes returns the smallest indexes neither succeeded nor active, increasing", () => {
    fc.assert(
      fc.property(indexSet, indexSet, fc.nat({ max: 70 }), fc.nat({ max: 61 }), (done, active, cnt, completions) => {
        const succeeded = withOrderedIndexes(
          [],
          [...done].sort((a, b) => a - b),
        );
        const pods = hollowPods(active.map((ix) => [String(ix), "Running"] as IndexPhase));
        const want: number[] = [];
        for (let ix = 0; ix < completions && want.length < cnt; ix++)
          if (!done.includes(ix) && !active.includes(ix)) want.push(ix);
        expect(firstPendingIndexes(pods, succeeded, cnt, completions)).toEqual(want);
      }),
    );
  });
});
