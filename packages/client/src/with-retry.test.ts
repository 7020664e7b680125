import { describe, expect, it } from "vitest";
import { checkWait, DEFAULT_MAX_RETRIES, retryAfterSeconds, WithRetry } from "./with-retry.js";

describe("retryAfterSeconds / checkWait", () => {
  it.each([
    [{ "retry-after": "1" }, 1],
    [{ "retry-after": " 7 " }, 7],
    [{ "retry-after": "0" }, 0],
    [{ "retry-after": "+3" }, 3],
    [{ "retry-after": ["2", "9"] }, 2],
    [{ "retry-after": "1.5" }, undefined],
    [{ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }, undefined],
    [{ "retry-after": "" }, undefined],
    [{}, undefined],
  ])("Retry-After %j → %s", (headers, want) => {
    expect(retryAfterSeconds(headers)).toBe(want);
  });

  it("only 429 and 5xx with a Retry-After ask for a retry", () => {
    const h = { "retry-after": "2" };
    expect(checkWait(429, h)).toBe(2);
    expect(checkWait(500, h)).toBe(2);
    expect(checkWait(503, h)).toBe(2);
    expect(checkWait(504, h)).toBe(2);
    expect(checkWait(409, h)).toBeUndefined();
    expect(checkWait(404, h)).toBeUndefined();
    expect(checkWait(200, h)).toBeUndefined();
    expect(checkWait(429, {})).toBeUndefined();
    expect(checkWait(500, {})).toBeUndefined();
  });
});

describe("WithRetry (rest/with_retry.go)", () => {
  it("TestIsNextRetry: retries a Retry-After answer up to maxRetries times, then stops", () => {
    const r = new WithRetry(3);
    const ans = { statusCode: 429, headers: { "retry-after": "5", "x-kubernetes-pf-flowschema-uid": "fs-1" } };
    const got = [r.isNextRetry(ans), r.isNextRetry(ans), r.isNextRetry(ans), r.isNextRetry(ans)];
    expect(got.map((x) => x?.waitSeconds)).toEqual([5, 5, 5, undefined]);
    expect(got[0]?.attempt).toBe(1);
    expect(got[0]?.reason).toBe("429 Too Many Requests (flow schema UID fs-1)");
    expect(r.attemptCount).toBe(4);
  });

  it("the default is 10 retries", () => {
    const r = new WithRetry();
    const ans = { statusCode: 503, headers: { "retry-after": "1" } };
    let n = 0;
    while (r.isNextRetry(ans) !== undefined) n++;
    expect(n).toBe(DEFAULT_MAX_RETRIES);
    expect(n).toBe(10);
  });

  it("an answer without Retry-After, or a 4xx other than 429, is not retried", () => {
    expect(new WithRetry().isNextRetry({ statusCode: 500, headers: {} })).toBeUndefined();
    expect(new WithRetry().isNextRetry({ statusCode: 410, headers: { "retry-after": "1" } })).toBeUndefined();
    expect(new WithRetry().isNextRetry({ statusCode: 503, headers: { "retry-after": "2" } })?.reason).toBe(
      "503 Service Unavailable",
    );
    expect(
      new WithRetry().isNextRetry({ statusCode: 500, headers: { "retry-after": "1" }, message: "etcd timed out" })
        ?.reason,
    ).toBe("500 Internal Server Error: etcd timed out");
  });

  it("a transport error is retried after 1 s only when the predicate says so", () => {
    const err = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(new WithRetry(10).isNextRetry({ error: err })).toBeUndefined();
    const r = new WithRetry(10, (e) => (e as { code?: string }).code === "ECONNRESET");
    const next = r.isNextRetry({ error: err });
    expect(next?.waitSeconds).toBe(1);
    expect(next?.reason).toBe("read ECONNRESET");
    expect(new WithRetry(0, () => true).isNextRetry({ error: err })).toBeUndefined();
  });
});
