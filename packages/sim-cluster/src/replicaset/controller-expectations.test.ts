import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import {
  ControllerExpectations,
  EXPECTATIONS_TIMEOUT_MS,
  UIDTrackingControllerExpectations,
} from "./controller-expectations.js";

// Ported from pkg/controller/controller_utils_test.go TestControllerExpectations and TestUIDExpectations.
describe("TestControllerExpectations", () => {
  it("is satisfied once adds and deletes are observed, or after the timeout", async () => {
    const clock = new FakeClock();
    const e = new ControllerExpectations(clock);
    const rc = "default/rc";
    const adds = 10;
    const dels = 2;
    e.setExpectations(rc, adds, dels);
    for (let i = 0; i < adds + 1; i++) e.creationObserved(rc);
    // Not yet satisfied: the deletes are pending.
    expect(e.satisfiedExpectations(rc)).toBe(false);
    for (let i = 0; i < dels + 1; i++) e.deletionObserved(rc);
    expect(e.satisfiedExpectations(rc)).toBe(true);
    const exp = e.getExpectations(rc)!;
    expect(exp.add).toBe(-1);
    expect(exp.del).toBe(-1);
    // Raising makes them unsatisfied; lowering back satisfies them.
    e.raiseExpectations(rc, 2, 1);
    expect(e.satisfiedExpectations(rc)).toBe(false);
    e.lowerExpectations(rc, 2, 1);
    expect(e.satisfiedExpectations(rc)).toBe(true);
    // Expectations that are not fulfilled expire.
    e.setExpectations(rc, 1, 0);
    expect(e.satisfiedExpectations(rc)).toBe(false);
    await clock.step(EXPECTATIONS_TIMEOUT_MS + 1);
    expect(e.satisfiedExpectations(rc)).toBe(true);
  });

  it("a key without expectations is satisfied; deleting them satisfies again", () => {
    const e = new ControllerExpectations(new FakeClock());
    expect(e.satisfiedExpectations("ns/none")).toBe(true);
    e.expectCreations("ns/a", 3);
    expect(e.satisfiedExpectations("ns/a")).toBe(false);
    e.deleteExpectations("ns/a");
    expect(e.satisfiedExpectations("ns/a")).toBe(true);
  });
});

describe("TestUIDExpectations", () => {
  it("observes each expected pod deletion once", () => {
    const e = new UIDTrackingControllerExpectations(new FakeClock());
    const rc = "default/rc";
    const pods = ["default/p1", "default/p2", "default/p3"];
    e.expectDeletionsOf(rc, pods);
    expect(e.getUIDs(rc)?.size).toBe(3);
    expect(e.satisfiedExpectations(rc)).toBe(false);
    e.deletionObservedOf(rc, "default/p1");
    e.deletionObservedOf(rc, "default/p1"); // a second sighting of the same pod does not count
    expect(e.getExpectations(rc)?.del).toBe(2);
    e.deletionObservedOf(rc, "default/unknown");
    expect(e.getExpectations(rc)?.del).toBe(2);
    e.deletionObservedOf(rc, "default/p2");
    e.deletionObservedOf(rc, "default/p3");
    expect(e.satisfiedExpectations(rc)).toBe(true);
    e.deleteExpectations(rc);
    expect(e.getUIDs(rc)).toBeUndefined();
    expect(e.getExpectations(rc)).toBeUndefined();
  });

  it("refuses to clobber tracked deletions", () => {
    const e = new UIDTrackingControllerExpectations(new FakeClock());
    e.expectDeletionsOf("ns/rs", ["ns/a"]);
    expect(() => e.expectDeletionsOf("ns/rs", ["ns/b"])).toThrow(/clobbering existing delete keys of ns\/rs: ns\/a/);
  });
});
