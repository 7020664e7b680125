import { describe, expect, it } from "vitest";
import {
  handlerViewConverges,
  notificationsOrdered,
  type RecordedNotification,
  replayNotifications,
  storeConverges,
  syncedHonest,
} from "./invariants.js";

const m = (o: Record<string, string>) => new Map(Object.entries(o));
const add = (key: string, rv: string, at = 0): RecordedNotification => ({ type: "add", at, key, rv, initial: false });
const upd = (key: string, oldRv: string, rv: string, at = 0): RecordedNotification => ({
  type: "update",
  at,
  key,
  oldRv,
  rv,
});
const del = (key: string, rv: string | undefined, tombstone = false, at = 0): RecordedNotification => ({
  type: "delete",
  at,
  key,
  rv,
  tombstone,
});

describe("invariants", () => {
  it("storeConverges names missing, stale and extra keys", () => {
    expect(storeConverges(m({ "ns/a": "3" }), m({ "ns/a": "3" }))).toEqual({
      name: "storeConverges",
      ok: true,
      violations: [],
    });
    const r = storeConverges(m({ "ns/a": "2", "ns/x": "9" }), m({ "ns/a": "3", "ns/b": "4" }));
    expect(r.ok).toBe(false);
    expect(r.violations).toEqual([
      "the store has ns/a at rv=2, server at rv=3",
      "the store lacks ns/b (server has rv=4)",
      "the store has ns/x (rv=9), deleted on the server",
    ]);
  });

  it("storeConverges against a serverView selection says an extra object left the selection, not that it was deleted", () => {
    const r = storeConverges(m({ "ns/a": "2", "ns/x": "9" }), m({ "ns/a": "3" }), "serverView");
    expect(r.violations).toEqual([
      "the store has ns/a at rv=2, the serverView selection at rv=3",
      "the store has ns/x (rv=9), which is not in the serverView selection (it left the selection or was deleted on the server)",
    ]);
    expect(handlerViewConverges([add("ns/b", "4")], m({}), "serverView").violations[0]).toMatch(
      /not in the serverView selection/,
    );
  });

  it("handlerViewConverges replays adds, updates and deletes (tombstones included)", () => {
    const notes = [add("ns/a", "2"), upd("ns/a", "2", "5"), add("ns/b", "3"), del("ns/b", undefined, true)];
    expect(replayNotifications(notes)).toEqual(m({ "ns/a": "5" }));
    expect(handlerViewConverges(notes, m({ "ns/a": "5" })).ok).toBe(true);
    expect(handlerViewConverges(notes, m({ "ns/a": "5", "ns/b": "3" })).violations).toEqual([
      "the handler's view lacks ns/b (server has rv=3)",
    ]);
  });

  it("notificationsOrdered accepts a relist's same-RV update and a re-create, and names each violation", () => {
    expect(
      notificationsOrdered([add("k", "2"), upd("k", "2", "2"), upd("k", "2", "4"), del("k", "6"), add("k", "7")]).ok,
    ).toBe(true);
    expect(notificationsOrdered([add("k", "5"), upd("k", "4", "6", 10)]).violations).toEqual([
      "@10 update k: old rv=4 is not the previous new rv=5",
    ]);
    expect(notificationsOrdered([add("k", "5"), upd("k", "5", "3", 7)]).violations).toEqual([
      "@7 update k rv=3 goes back from rv=5",
    ]);
    expect(notificationsOrdered([add("k", "5"), del("k", "6"), upd("k", "6", "7", 3)]).violations).toEqual([
      "@3 update k rv=7 after its delete, without an add",
    ]);
    expect(notificationsOrdered([add("k", "5"), add("k", "6", 4)]).violations).toEqual([
      "@4 add k rv=6 while the handler holds rv=5",
    ]);
    expect(notificationsOrdered([del("k", "6", false, 2)]).violations).toEqual([
      "@2 delete k that the handler does not hold",
    ]);
  });

  it("syncedHonest flags hasSynced before the initial objects reached the handler; lists are capped", () => {
    expect(syncedHonest([{ at: 0, synced: false, storeKeys: ["a"], notifiedKeys: [] }]).ok).toBe(true);
    expect(syncedHonest([{ at: 5, synced: true, storeKeys: ["a", "b"], notifiedKeys: ["a"] }]).violations).toEqual([
      "@5 hasSynced is true but the handler never got b",
    ]);
    const many = Array.from({ length: 15 }, (_, i) => [`k${i}`, "1"] as const);
    const r = storeConverges(new Map(), new Map(many));
    expect(r.violations).toHaveLength(11);
    expect(r.violations[10]).toBe("… and 5 more");
  });
});
