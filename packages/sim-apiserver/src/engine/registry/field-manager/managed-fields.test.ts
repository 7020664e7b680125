import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { deepFreeze } from "../../object-util.js";
import { SimApiServer } from "../../sim-apiserver.js";
import { decodeManagedFields, releaseManagedFields } from "./managed-fields.js";

const ENTRY = {
  manager: "kubectl",
  operation: "Update",
  apiVersion: "v1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
};

/** The set `decodeManagedFields` gives for the single manager of `entries`. */
function setOf(entries: unknown) {
  const [m] = decodeManagedFields(entries).values();
  if (m === undefined) throw new Error("no manager decoded");
  return m.set;
}

function cm(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data };
}

describe("decoded managed fields", () => {
  it("a frozen list decodes once (its sets are shared); a released list is decoded anew, to equal sets", () => {
    const list = deepFreeze([structuredClone(ENTRY)]);
    const first = setOf(list);
    expect(setOf(list)).toBe(first);
    releaseManagedFields(list);
    const again = setOf(list);
    expect(again).not.toBe(first);
    expect(again.sameAs(first)).toBe(true);
  });

  it("a list that is not frozen is decoded on every call", () => {
    const list = [structuredClone(ENTRY)];
    expect(setOf(list)).not.toBe(setOf(list));
  });

  it("the registry keeps the decoding of the live version only: a replaced or deleted version's is released", async () => {
    const engine = new SimApiServer({
      clock: new FakeClock(),
      rand: seededRand(3),
      compactionIntervalMs: 0,
      progressNotifyIntervalMs: 0,
    });
    const created = await engine.create("configmaps", "default", cm("c", { a: "1" }));
    const createdSet = setOf(created.metadata?.managedFields);
    expect(setOf(created.metadata?.managedFields)).toBe(createdSet);
    const updated = await engine.update("configmaps", "default", "c", { ...cm("c", { a: "2", b: "3" }) });
    expect(updated.metadata?.managedFields).not.toBe(created.metadata?.managedFields);
    // The replaced version's list decodes again (equal content); the live one's is what the update encoded.
    const reDecoded = setOf(created.metadata?.managedFields);
    expect(reDecoded).not.toBe(createdSet);
    expect(reDecoded.sameAs(createdSet)).toBe(true);
    const liveSet = setOf(updated.metadata?.managedFields);
    expect(setOf(updated.metadata?.managedFields)).toBe(liveSet);
    await engine.delete("configmaps", "default", "c");
    expect(setOf(updated.metadata?.managedFields)).not.toBe(liveSet);
    engine.stop();
  });
});
