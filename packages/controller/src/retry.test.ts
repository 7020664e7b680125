import { newConflict, newNotFound } from "@informer-ts/apimachinery";
import type { Backoff } from "@informer-ts/cache";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { DefaultBackoff, DefaultRetry, onError, retryOnConflict } from "./retry.js";

const conflict = () => newConflict({ group: "", resource: "test" }, "other");

/** Runs `p` to completion on the fake clock, stepping it 1 ms at a time; returns the pause times seen. */
async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  const out = p.finally(() => {
    done = true;
  });
  out.catch(() => {});
  for (let i = 0; i < 100_000 && !done; i++) {
    await settle();
    if (!done) await clock.step(1);
  }
  return out;
}

describe("retryOnConflict (client-go util/retry)", () => {
  // client-go util/retry/util_test.go TestRetryOnConflict, with its backoff { Factor: 1.0, Steps: 3 }.
  const opts: Backoff = { factor: 1, steps: 3, duration: 0, jitter: 0, cap: 0 };

  it("TestRetryOnConflict: never succeeds → the conflict; succeeds → at once; other error → at once; retries", async () => {
    const clock = new FakeClock(0);
    const o = { clock };
    const err = conflict();
    let calls = 0;
    await expect(
      drive(
        clock,
        retryOnConflict(
          opts,
          () => {
            calls++;
            throw err;
          },
          o,
        ),
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(3);

    let i = 0;
    await drive(
      clock,
      retryOnConflict(
        opts,
        () => {
          i++;
        },
        o,
      ),
    );
    expect(i).toBe(1);

    const other = new Error("some other error");
    calls = 0;
    await expect(
      drive(
        clock,
        retryOnConflict(
          opts,
          () => {
            calls++;
            throw other;
          },
          o,
        ),
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);

    i = 0;
    await drive(
      clock,
      retryOnConflict(
        opts,
        () => {
          if (i < 2) {
            i++;
            throw conflict();
          }
          return "ok";
        },
        o,
      ),
    );
    expect(i).toBe(2);
  });

  it.each([
    ["DefaultRetry", DefaultRetry, [10, 10, 10, 10]],
    ["DefaultBackoff", DefaultBackoff, [10, 50, 250]],
  ] as const)(
    "%s pauses as wait.ExponentialBackoff (within 10 %% jitter) on the injected clock",
    async (_n, backoff, want) => {
      const clock = new FakeClock(0);
      const at: number[] = [];
      await expect(
        drive(
          clock,
          retryOnConflict(
            backoff,
            () => {
              at.push(clock.now());
              throw conflict();
            },
            { clock, rand: seededRand(3) },
          ),
        ),
      ).rejects.toMatchObject({ code: 409 });
      expect(at).toHaveLength(backoff.steps);
      const gaps = at.slice(1).map((t, k) => t - at[k]!);
      gaps.forEach((g, k) => {
        expect(g).toBeGreaterThanOrEqual(want[k]!);
        expect(g).toBeLessThanOrEqual(Math.ceil(want[k]! * 1.1) + 1);
      });
    },
  );

  it("onError retries what `retriable` accepts (here NotFound), and the signal stops the pauses", async () => {
    const clock = new FakeClock(0);
    let calls = 0;
    const v = await drive(
      clock,
      onError(
        DefaultRetry,
        (e) => (e as { code?: number }).code === 404,
        () => {
          if (++calls < 3) throw newNotFound({ group: "", resource: "x" }, "y");
          return calls;
        },
        { clock },
      ),
    );
    expect(v).toBe(3);
    const ac = new AbortController();
    ac.abort(new Error("stopped"));
    await expect(
      retryOnConflict(
        DefaultRetry,
        () => {
          throw conflict();
        },
        { clock, signal: ac.signal },
      ),
    ).rejects.toThrow("stopped");
  });

  it("rejects a bad backoff by name", async () => {
    await expect(retryOnConflict({ ...DefaultRetry, steps: Number.NaN }, () => 1)).rejects.toThrow(
      /backoff\.steps must be a finite number/,
    );
  });
});
