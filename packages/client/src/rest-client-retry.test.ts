import { fc, test } from "@fast-check/vitest";
import { statusOf } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { MockAgent } from "undici";
import { describe, expect } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import { KubeClient } from "./rest-client.js";

/** One scripted server answer. */
type Answer =
  | { kind: "ok" }
  | { kind: "retry-after"; code: 429 | 500 | 503 | 504; seconds: number }
  | { kind: "no-header"; code: 429 | 500 | 503 }
  | { kind: "client-error"; code: 400 | 404 | 409 | 410 };

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  { arbitrary: fc.constant<Answer>({ kind: "ok" }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("retry-after" as const),
      code: fc.constantFrom(429 as const, 500 as const, 503 as const, 504 as const),
      seconds: fc.integer({ min: 0, max: 5 }),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("no-header" as const),
      code: fc.constantFrom(429 as const, 500 as const, 503 as const),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("client-error" as const),
      code: fc.constantFrom(400 as const, 404 as const, 409 as const, 410 as const),
    }),
    weight: 1,
  },
);

/** client-go's request loop as a reference model: attempts made, total Retry-After sleep, final code. */
function model(script: readonly Answer[], maxRetries: number): { attempts: number; sleptMs: number; code: number } {
  let sleptMs = 0;
  for (let attempt = 1; ; attempt++) {
    const a = script[attempt - 1] ?? { kind: "ok" };
    if (a.kind === "ok") return { attempts: attempt, sleptMs, code: 200 };
    if (a.kind === "retry-after" && attempt <= maxRetries) {
      sleptMs += a.seconds * 1000;
      continue;
    }
    return { attempts: attempt, sleptMs, code: a.code };
  }
}

describe("KubeClient retry loop against a reference model (with_retry.go)", () => {
  test.prop([fc.array(answerArb, { maxLength: 14 }), fc.integer({ min: 0, max: 10 })], { numRuns: 120 })(
    "attempt count, Retry-After sleeps and the final result match client-go",
    async (script, maxRetries) => {
      const origin = "http://apiserver.test:6443";
      const agent = new MockAgent();
      agent.disableNetConnect();
      let served = 0;
      agent
        .get(origin)
        .intercept({ path: () => true, method: "GET" })
        .reply(() => {
          const a = script[served++] ?? { kind: "ok" };
          const json = { "content-type": "application/json" };
          if (a.kind === "ok")
            return {
              statusCode: 200,
              data: JSON.stringify({ metadata: { resourceVersion: "1" }, items: [] }),
              responseOptions: { headers: json },
            };
          const headers = a.kind === "retry-after" ? { ...json, "retry-after": String(a.seconds) } : json;
          return {
            statusCode: a.code,
            data: JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: a.code }),
            responseOptions: { headers },
          };
        })
        .persist();
      const clock = new FakeClock();
      const start = clock.now();
      const c = new KubeClient(
        { server: origin },
        { clock, dispatcher: agent, maxRetries, rateLimiter: null, quiet: true },
      );
      let settled = false;
      const p = c
        .list(builtinResources.configmaps)
        .then(() => 200)
        .catch((e: unknown) => statusOf(e)?.code ?? -1)
        .finally(() => {
          settled = true;
        });
      // Drive virtual time until the request settles (each step runs the next Retry-After sleep).
      for (let i = 0; i < 2000 && !settled; i++) await clock.runUntilIdle();
      const code = await p;
      const want = model(script, maxRetries);
      expect({ attempts: served, sleptMs: clock.since(start), code }).toEqual(want);
      await agent.close();
    },
  );
});
