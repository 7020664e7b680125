// The events.k8s.io/v1 ↔ core v1 Event conversion: upstream's tables of pkg/apis/events/v1/conversion_test.go, then
// a fast-check property (both directions invert each other on every field both versions have).
import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coreEventToEventsV1, eventsV1ToCoreEvent } from "./event-conversion.js";

describe("Test_convert_v1_Event_To_core_Event (pkg/apis/events/v1/conversion_test.go)", () => {
  it("Test_convert_v1_Event_To_core_Event", () => {
    const v1: KubeObject = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "foo", namespace: "default" },
      regarding: { kind: "Pod", namespace: "default", name: "foo" },
      deprecatedSource: { component: "controller-manager", host: "master1" },
      note: "convert v1 event to core event",
    };
    expect(eventsV1ToCoreEvent(v1)).toEqual({
      kind: "Event",
      apiVersion: "v1",
      metadata: { name: "foo", namespace: "default" },
      involvedObject: { namespace: "default", name: "foo", kind: "Pod" },
      source: { component: "controller-manager", host: "master1" },
      message: "convert v1 event to core event",
    });
  });
});

describe("Test_convert_core_Event_To_v1_Event (pkg/apis/events/v1/conversion_test.go)", () => {
  it("Test_convert_core_Event_To_v1_Event", () => {
    const core: KubeObject = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "foo", namespace: "default" },
      involvedObject: { namespace: "default", name: "foo", kind: "Pod" },
      source: { component: "controller-manager", host: "master1" },
      message: "convert core event to v1 event",
    };
    expect(coreEventToEventsV1(core)).toEqual({
      kind: "Event",
      apiVersion: "events.k8s.io/v1",
      metadata: { name: "foo", namespace: "default" },
      regarding: { kind: "Pod", namespace: "default", name: "foo" },
      deprecatedSource: { component: "controller-manager", host: "master1" },
      note: "convert core event to v1 event",
    });
  });
});

describe("the conversion's field mapping (Convert_v1_Event_To_core_Event / Convert_core_Event_To_v1_Event)", () => {
  const full: KubeObject = {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: "e", namespace: "ns" },
    eventTime: "2026-01-01T00:00:00.000000Z",
    series: { count: 2, lastObservedTime: "2026-01-01T00:00:01.000000Z" },
    reportingController: "ctl",
    reportingInstance: "ctl-1",
    action: "Do",
    reason: "Test",
    regarding: { kind: "Pod", name: "p" },
    related: { kind: "Node", name: "n" },
    note: "hello",
    type: "Normal",
    deprecatedSource: { component: "c" },
    deprecatedFirstTimestamp: "2026-01-01T00:00:00Z",
    deprecatedLastTimestamp: "2026-01-01T00:00:02Z",
    deprecatedCount: 3,
  };

  it("renames every field that differs and writes the core struct's field order", () => {
    const core = eventsV1ToCoreEvent(full);
    expect(Object.keys(core)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "involvedObject",
      "reason",
      "message",
      "source",
      "firstTimestamp",
      "lastTimestamp",
      "count",
      "type",
      "eventTime",
      "series",
      "action",
      "related",
      "reportingComponent",
      "reportingInstance",
    ]);
    expect(core).toMatchObject({
      involvedObject: full.regarding,
      message: "hello",
      reportingComponent: "ctl",
      source: { component: "c" },
      firstTimestamp: full.deprecatedFirstTimestamp,
      lastTimestamp: full.deprecatedLastTimestamp,
      count: 3,
    });
  });

  it("drops a field spelled as the other version has it (the target type has no such field)", () => {
    const withForeign = { ...full, message: "core spelling" } as KubeObject;
    expect(eventsV1ToCoreEvent(withForeign).message).toBe("hello");
    const core = { ...eventsV1ToCoreEvent(full), note: "events spelling" } as KubeObject;
    expect(coreEventToEventsV1(core).note).toBe("hello");
  });

  const ref = fc.record({ kind: fc.string(), name: fc.string() }, { requiredKeys: [] });
  const eventsV1 = fc.record(
    {
      eventTime: fc.string(),
      series: fc.record({ count: fc.integer(), lastObservedTime: fc.string() }),
      reportingController: fc.string(),
      reportingInstance: fc.string(),
      action: fc.string(),
      reason: fc.string(),
      regarding: ref,
      related: ref,
      note: fc.string(),
      type: fc.string(),
      deprecatedSource: fc.record({ component: fc.string(), host: fc.string() }, { requiredKeys: [] }),
      deprecatedFirstTimestamp: fc.string(),
      deprecatedLastTimestamp: fc.string(),
      deprecatedCount: fc.integer(),
    },
    { requiredKeys: [] },
  );

  it("property: events.k8s.io → core → events.k8s.io is the identity, and so is core → events.k8s.io → core", () => {
    fc.assert(
      fc.property(eventsV1, (fields) => {
        const v1 = { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "e" }, ...fields } as KubeObject;
        const core = eventsV1ToCoreEvent(v1);
        expect(coreEventToEventsV1(core)).toEqual(v1);
        expect(eventsV1ToCoreEvent(coreEventToEventsV1(core))).toEqual(core);
        // Nothing of one version's spelling survives in the other.
        const eventsOnly = ["regarding", "note", "reportingController", "deprecatedSource", "deprecatedCount"];
        expect(Object.keys(core).filter((k) => eventsOnly.includes(k) || k.startsWith("deprecated"))).toEqual([]);
      }),
    );
  });
});
