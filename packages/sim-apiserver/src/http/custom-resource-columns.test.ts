// A custom resource version's additionalPrinterColumns as Table columns (apiextensions' tableconvertor): the JSONPath
// forms printer columns use, and each column type's cell (cellForJSONValue), null where nothing or the wrong type is
// found.
import { describe, expect, it } from "vitest";
import { customResourceColumnsPrinter, parseColumnPath } from "./custom-resource-columns.js";

const NOW = Date.parse("2026-06-01T01:00:00Z");
const obj = {
  apiVersion: "example.net/v1",
  kind: "Robot",
  metadata: { name: "r1", creationTimestamp: "2026-06-01T00:00:00Z", labels: { "app.kubernetes.io/name": "arm" } },
  spec: { replicas: 3, ratio: 0.5, paused: false, tags: ["a", "b"] },
  status: {
    conditions: [
      { type: "Ready", status: "True" },
      { type: "Stalled", status: "False" },
    ],
  },
};

describe("printer column JSONPaths", () => {
  it("parses fields, indexes, quoted keys, wildcards and equality filters; rejects anything else", () => {
    expect(parseColumnPath(".spec.replicas")).toEqual([{ field: "spec" }, { field: "replicas" }]);
    expect(parseColumnPath("{.spec.tags[1]}")).toEqual([{ field: "spec" }, { field: "tags" }, { index: 1 }]);
    expect(parseColumnPath(".metadata.labels['app.kubernetes.io/name']")).toEqual([
      { field: "metadata" },
      { field: "labels" },
      { field: "app.kubernetes.io/name" },
    ]);
    expect(parseColumnPath('.status.conditions[?(@.type=="Ready")].status')).toEqual([
      { field: "status" },
      { field: "conditions" },
      { filter: ["type"], equals: "Ready" },
      { field: "status" },
    ]);
    expect(parseColumnPath(".spec.tags[*]")).toEqual([{ field: "spec" }, { field: "tags" }, { all: true }]);
    expect(parseColumnPath(".spec..replicas")).toBeUndefined();
  });
});

describe("cells by column type (tableconvertor's cellForJSONValue)", () => {
  const column = (type: string, jsonPath: string) => ({ name: type, type, jsonPath });
  const cells = (...cols: Array<ReturnType<typeof column>>) =>
    customResourceColumnsPrinter(cols).cells(obj, NOW).slice(1);
  it("Name first, then each column with its own definition", () => {
    const p = customResourceColumnsPrinter([
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", priority: 1 },
    ]);
    expect(p.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ["Name", "string", 0],
      ["Replicas", "integer", 1],
    ]);
    expect(p.cells(obj, NOW)).toEqual(["r1", 3]);
  });
  it("each type's cell, and null for a missing value or a value of another type", () => {
    expect(
      cells(
        column("integer", ".spec.replicas"),
        column("number", ".spec.ratio"),
        column("boolean", ".spec.paused"),
        column("string", '.status.conditions[?(@.type=="Ready")].status'),
        column("date", ".metadata.creationTimestamp"),
        column("string", ".spec.tags[*]"),
        column("string", ".spec.replicas"),
      ),
    ).toEqual([3, 0.5, false, "True", "60m", "a", "3"]);
    expect(
      cells(column("integer", ".spec.ratio"), column("integer", ".spec.missing"), column("date", ".spec.paused")),
    ).toEqual([null, null, null]);
  });
});
