import { describe, expect, it } from "vitest";
import { renderTimeline } from "./timeline.js";

const e = (at: number, kind: string, text: string) => ({ at, kind, text });

describe("renderTimeline", () => {
  it("sorts by virtual time (stable), and prints identical lines at one instant once with a count", () => {
    const out = renderTimeline([e(5, "request", "b"), e(1, "step", "a"), e(5, "request", "b"), e(5, "phase", "c")]);
    expect(out.map((l) => l.trim())).toEqual(["1  step         a", "5  request      b (×2)", "5  phase        c"]);
  });

  it("folds a cycle that repeats at least 3 times, numbers aside, and says how often and over which span", () => {
    const cycle = (t: number, rv: number) => [
      e(t, "request", `create secrets → 201`),
      e(t + 2, "notification", `secrets add a rv=${rv}`),
      e(t + 4, "simulator", `garbage-collector: deleted secrets a`),
    ];
    const timeline = [
      e(0, "step", "start"),
      ...[0, 1, 2, 3, 4].flatMap((i) => cycle(1000 + 7 * i, 10 + i)),
      e(2000, "phase", "end"),
    ];
    const out = renderTimeline(timeline).map((l) => l.trim());
    expect(out).toEqual([
      "0  step         start",
      "1000  request      create secrets → 201",
      "1002  notification secrets add a rv=10",
      "1004  simulator    garbage-collector: deleted secrets a",
      "⋯            the same 3 lines ×4 more, from 1,007 ms to 1,032 ms",
      "2000  phase        end",
    ]);
    // Twice is no cycle yet.
    expect(renderTimeline([...cycle(0, 1), ...cycle(7, 2)])).toHaveLength(6);
  });

  it("cuts the middle of a long timeline with a count", () => {
    // 300 different lines (letters, not numbers: numbers are ignored when looking for cycles).
    const word = (i: number) => String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26));
    const out = renderTimeline(Array.from({ length: 300 }, (_, i) => e(i, "step", `step ${word(i)}`)));
    expect(out.length).toBeLessThanOrEqual(91);
    expect(out.some((l) => /⋯ +\d+ lines cut/.test(l))).toBe(true);
  });
});
