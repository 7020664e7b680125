import { describe, expect, it } from "vitest";
import { stoppingIterator } from "./watch-iterator.js";

describe("stoppingIterator", () => {
  it("pulls from the source and stops it when for-await is left early", async () => {
    let stops = 0;
    let i = 0;
    const source = {
      next: () =>
        Promise.resolve(i < 5 ? { value: i++, done: false as const } : { value: undefined, done: true as const }),
      stop: () => void stops++,
    };
    const seen: number[] = [];
    for await (const v of { [Symbol.asyncIterator]: () => stoppingIterator<number>(source) }) {
      seen.push(v);
      if (v === 2) break;
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(stops).toBe(1);
    // Exhausting the source does not call stop (the source ended by itself).
    const all: number[] = [];
    for await (const v of { [Symbol.asyncIterator]: () => stoppingIterator<number>(source) }) all.push(v);
    expect(all).toEqual([3, 4]);
    expect(stops).toBe(1);
  });
});
