import { fc, test } from "@fast-check/vitest";
import { FakeClock, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { parallelizeUntil } from "./parallelizer.js";

const cases = [
  { pieces: 1000, workers: 10, chunkSize: 1 },
  { pieces: 1000, workers: 10, chunkSize: 10 },
  { pieces: 1000, workers: 10, chunkSize: 100 },
  { pieces: 999, workers: 10, chunkSize: 13 },
];

describe("parallelizeUntil (parallelizer_test.go)", () => {
  it.each(cases)("M1 TestParallelizeUntil pieces:$pieces,workers:$workers,chunkSize:$chunkSize", async (tc) => {
    const seen = new Array<number>(tc.pieces).fill(0);
    await parallelizeUntil(
      undefined,
      tc.workers,
      tc.pieces,
      async (p) => {
        await Promise.resolve();
        seen[p]!++;
      },
      { chunkSize: tc.chunkSize },
    );
    expect(seen).toEqual(new Array<number>(tc.pieces).fill(1));
  });

  it("M1 BenchmarkParallelizeUntil (as a test): a synchronous work function computes every piece", async () => {
    const isPrime = new Array<boolean>(100).fill(false);
    const calPrime = (p: number) => {
      if (p <= 1) return false;
      for (let i = 2; i * i <= p; i++) if (p % i === 0) return false;
      return true;
    };
    await parallelizeUntil(new AbortController().signal, 4, 100, (p) => {
      isPrime[p] = calPrime(p);
    });
    expect(isPrime.slice(0, 12)).toEqual([
      false,
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      false,
      false,
      false,
      true,
    ]);
  });

  it("M1 pieces = 0 returns at once without calling the function", async () => {
    let calls = 0;
    await parallelizeUntil(undefined, 4, 0, () => {
      calls++;
    });
    expect(calls).toBe(0);
  });

  it("M1 at most min(workers, chunks) workers run concurrently", async () => {
    const clock = new FakeClock();
    let running = 0;
    let peak = 0;
    const run = (workers: number, pieces: number, chunkSize: number) =>
      parallelizeUntil(
        undefined,
        workers,
        pieces,
        async () => {
          running++;
          peak = Math.max(peak, running);
          await clock.sleep(10);
          running--;
        },
        { chunkSize },
      );
    let p = run(8, 20, 10); // 2 chunks → 2 workers
    await clock.runUntilIdle();
    await p;
    expect(peak).toBe(2);
    peak = 0;
    p = run(3, 20, 1);
    await clock.runUntilIdle();
    await p;
    expect(peak).toBe(3);
  });

  it("M1 chunkSize < 1 means 1; workers < 1 process nothing (as in client-go)", async () => {
    const seen: number[] = [];
    await parallelizeUntil(undefined, 2, 5, (p) => void seen.push(p), { chunkSize: 0 });
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4]);
    let calls = 0;
    await parallelizeUntil(undefined, 0, 5, () => {
      calls++;
    });
    expect(calls).toBe(0);
  });

  it("M1 the signal is checked before each piece: an abort stops every worker after its current piece", async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const started: number[] = [];
    const p = parallelizeUntil(
      ac.signal,
      3,
      100,
      async (piece) => {
        started.push(piece);
        await clock.sleep(10);
      },
      { chunkSize: 5 },
    );
    await clock.step(25); // three rounds of three pieces have started
    ac.abort();
    await clock.runUntilIdle();
    await p;
    expect(started.length).toBe(9);
    // Each worker walked its own chunk in order: chunk 0 → 0,1,2; chunk 1 → 5,6,7; chunk 2 → 10,11,12.
    expect([...started].sort((a, b) => a - b)).toEqual([0, 1, 2, 5, 6, 7, 10, 11, 12]);
  });

  it("M1 an already-aborted signal runs nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    await parallelizeUntil(ac.signal, 2, 10, () => {
      calls++;
    });
    expect(calls).toBe(0);
  });

  it("M1 errors are collected into one AggregateError after every worker stops; a failing worker stops", async () => {
    const done: number[] = [];
    const err = await parallelizeUntil(
      undefined,
      2,
      10,
      async (p) => {
        await settle();
        if (p === 3) throw new Error("piece 3 failed");
        if (p === 7) throw new Error("piece 7 failed");
        done.push(p);
      },
      { chunkSize: 5 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors.map((e) => (e as Error).message).sort()).toEqual([
      "piece 3 failed",
      "piece 7 failed",
    ]);
    // Worker of chunk 0 stopped at piece 3 (4 skipped); worker of chunk 1 stopped at 7 (8, 9 skipped).
    expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 5, 6]);
  });

  it("M1 onError receives each error and its piece; parallelizeUntil then resolves", async () => {
    const reported: [string, number][] = [];
    await parallelizeUntil(
      undefined,
      1,
      4,
      (p) => {
        if (p === 1) throw new Error("boom");
      },
      { chunkSize: 1, onError: (e, piece) => reported.push([(e as Error).message, piece]) },
    );
    expect(reported).toEqual([["boom", 1]]);
  });

  it("M1 a throwing onError is collected, never an unhandled rejection", async () => {
    await expect(
      parallelizeUntil(
        undefined,
        1,
        1,
        () => {
          throw new Error("piece");
        },
        {
          onError: () => {
            throw new Error("handler");
          },
        },
      ),
    ).rejects.toBeInstanceOf(AggregateError);
  });

  it("M1 bad arguments are rejected with a clear message", async () => {
    await expect(parallelizeUntil(undefined, 1, -1, () => {})).rejects.toThrow(/pieces must be a non-negative integer/);
    await expect(parallelizeUntil(undefined, 1.5, 1, () => {})).rejects.toThrow(/workers must be an integer/);
  });

  test.prop([fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: -2, max: 40 })], {
    numRuns: 100,
  })(
    "M1 every piece is processed exactly once for any pieces, workers and chunk size",
    async (pieces, workers, chunk) => {
      const seen = new Array<number>(pieces).fill(0);
      await parallelizeUntil(
        undefined,
        workers,
        pieces,
        async (p) => {
          if (p % 3 === 0) await Promise.resolve();
          seen[p]!++;
        },
        { chunkSize: chunk },
      );
      expect(seen.every((n) => n === 1)).toBe(true);
    },
  );
});
