// The demo's expectations judged on recorded reflector events: what passes, and that each way of failing fails with
// a message saying what was seen instead.
import type { ReflectorEvent } from "@informer-ts/cache";
import { describe, expect, it } from "vitest";
import {
  checkConverged,
  checkRelistAfterReinit,
  checkRewatchAfterDrop,
  type DemoCheck,
  formatCheck,
} from "./demo-checks.js";

type Body = ReflectorEvent extends infer E ? (E extends ReflectorEvent ? Omit<E, "reflector" | "time"> : never) : never;
const ev = (e: Body, time = 0): ReflectorEvent => ({ ...e, reflector: "demo", time }) as ReflectorEvent;

const watchEnd = (code?: number) =>
  ev({
    type: "watch-end",
    reason: code === undefined ? "closed" : "error",
    events: 3,
    durationMs: 10,
    ...(code !== undefined && { error: { message: `code ${code}`, code, name: "StatusError" } }),
  });
const error = (code: number) =>
  ev({ type: "error", during: "watch", error: { message: `code ${code}`, code, name: "StatusError" } });

describe("checkRewatchAfterDrop", () => {
  it("passes for a re-watch from the RV held at the drop, or a later one, without a relist", () => {
    const ok = checkRewatchAfterDrop(
      [
        watchEnd(),
        ev({ type: "rewatch", cause: "closed" }),
        ev({ type: "watch-start", resourceVersion: "3620", timeoutSeconds: 300 }),
      ],
      "3600",
      1,
    );
    expect(ok).toEqual({ name: "rewatch-after-drop", ok: true, detail: "re-watched from RV 3620, no relist" });
    expect(formatCheck(ok)).toBe("✓ re-watched from RV 3620, no relist");
  });

  it("fails when the reflector relisted instead, or after re-watching", () => {
    const relisted = checkRewatchAfterDrop(
      [
        watchEnd(410),
        ev({ type: "relist", cause: "expired" }),
        ev({ type: "watch-list-start", resourceVersion: "", timeoutSeconds: 300 }),
      ],
      "3600",
      1,
    );
    expect(relisted.ok).toBe(false);
    expect(relisted.detail).toBe("relisted (expired) instead of re-watching from RV 3600");
    const later = checkRewatchAfterDrop(
      [
        ev({ type: "watch-start", resourceVersion: "3600", timeoutSeconds: 300 }),
        ev({ type: "relist", cause: "very-short" }),
      ],
      "3600",
      1,
    );
    expect(later).toMatchObject({ ok: false, detail: "re-watched from RV 3600, but then relisted (very-short)" });
  });

  it("fails for a re-watch from scratch or from an older RV, for no re-watch, and when nothing was dropped", () => {
    const scratch = checkRewatchAfterDrop(
      [ev({ type: "watch-start", resourceVersion: "", timeoutSeconds: 1 })],
      "5",
      1,
    );
    expect(scratch).toMatchObject({
      ok: false,
      detail: 're-watched from RV "" (from scratch), not from the last RV 5',
    });
    const older = checkRewatchAfterDrop([ev({ type: "watch-start", resourceVersion: "4", timeoutSeconds: 1 })], "5", 1);
    expect(older).toMatchObject({ ok: false, detail: "re-watched from RV 4, older than the last RV seen (5)" });
    expect(checkRewatchAfterDrop([watchEnd()], "5", 1)).toMatchObject({
      ok: false,
      detail: "no re-watch seen after the drop (last RV 5)",
    });
    expect(checkRewatchAfterDrop([], "5", 0).ok).toBe(false);
  });
});

describe("checkRelistAfterReinit", () => {
  const relistDone = [
    error(410),
    ev({ type: "relist", cause: "expired" }),
    ev({ type: "watch-list-start", resourceVersion: "", timeoutSeconds: 300 }),
    ev({ type: "watch-list-done", resourceVersion: "4000", items: 2010, durationMs: 40 }),
    ev({ type: "watch-start", resourceVersion: "4000", timeoutSeconds: 300 }),
  ];

  it("passes for 429s, then a 410 and exactly one finished relist because of it", () => {
    expect(checkRelistAfterReinit([watchEnd(), ...relistDone], 2)).toEqual({
      name: "relist-after-reinit",
      ok: true,
      detail: "2× 429 while unready, then 410 and exactly one relist (a watch-list of 2010 objects)",
    });
  });

  it("fails without a 429 (the cache was never unready), naming what was seen", () => {
    const c = checkRelistAfterReinit(relistDone, 0);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe("no 429 while the cache was unready (seen: 0× 429, a 410, 1 relist(s))");
  });

  it("fails for two relists, a relist for another cause, no 410, or a relist that did not finish", () => {
    const twice = checkRelistAfterReinit([...relistDone, ev({ type: "relist", cause: "very-short" })], 1);
    expect(twice.detail).toContain("2 relists (expired, very-short), not exactly one");
    const other = checkRelistAfterReinit(
      [error(410), ev({ type: "relist", cause: "watch-error" }), ...relistDone.slice(2)],
      1,
    );
    expect(other.detail).toContain("the relist was for watch-error, not for the 410");
    const no410 = checkRelistAfterReinit(relistDone.slice(1), 1);
    expect(no410.detail).toContain("no 410 for the old RV");
    const unfinished = checkRelistAfterReinit(relistDone.slice(0, 3), 1);
    expect(unfinished.detail).toContain("the relist did not finish");
    const none = checkRelistAfterReinit([watchEnd()], 1);
    expect(none.detail).toBe("no 410 for the old RV; no relist (seen: 1× 429, no 410, 0 relist(s))");
    for (const c of [twice, other, no410, unfinished, none]) expect(c.ok).toBe(false);
  });
});

describe("checkConverged", () => {
  it("passes without a mismatch and names the first difference otherwise", () => {
    const ok: DemoCheck = checkConverged(2000, 2000, undefined);
    expect(formatCheck(ok)).toBe(
      "✓ converged: the store holds 2000 objects, equal to the apiserver's (same keys, same resourceVersions)",
    );
    const bad = checkConverged(1999, 2000, "ns-1/cm-00001 (resourceVersion 7) is on the server but not in the store");
    expect(formatCheck(bad)).toBe(
      "✗ NOT converged: store 1999 vs apiserver 2000 objects; first difference: ns-1/cm-00001 (resourceVersion 7) is on the server but not in the store",
    );
  });
});
