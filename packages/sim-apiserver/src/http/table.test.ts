import { describe, expect, it } from "vitest";
import { deepFreeze } from "../engine/object-util.js";
import { jsonOf } from "./encoding-cache.js";
import { negotiateOutput } from "./negotiation.js";
import {
  asPartialObjectMetadata,
  configMapTablePrinter,
  defaultTablePrinter,
  humanDuration,
  listToTable,
  objectToTable,
  tablePrinterFor,
} from "./table.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("humanDuration (apimachinery duration.HumanDuration)", () => {
  it("TestHumanDuration cases", () => {
    const cases: Array<[number, string]> = [
      [-2 * S, "<invalid>"],
      [-1 * S, "0s"],
      [0, "0s"],
      [1 * S, "1s"],
      [119 * S, "119s"],
      [2 * M, "2m"],
      [2 * M + 5 * S, "2m5s"],
      [9 * M + 59 * S, "9m59s"],
      [10 * M + 30 * S, "10m"],
      [179 * M, "179m"],
      [3 * H, "3h"],
      [3 * H + 30 * M, "3h30m"],
      [8 * H, "8h"],
      [47 * H + 59 * M, "47h"],
      [2 * D, "2d"],
      [2 * D + 5 * H, "2d5h"],
      [8 * D, "8d"],
      [729 * D, "729d"],
      [730 * D, "2y"],
      [731 * D, "2y1d"],
      [8 * 365 * D, "8y"],
    ];
    for (const [ms, want] of cases) expect(humanDuration(ms), `${ms}`).toBe(want);
  });
});

const cm = {
  metadata: {
    name: "a",
    namespace: "default",
    resourceVersion: "7",
    creationTimestamp: "2026-01-01T00:00:00Z",
  },
  data: { x: "1", y: "2" },
  binaryData: { z: "AA==" },
};

describe("Table rendering (rest.defaultTableConvertor / ConfigMap printer)", () => {
  it("default printer: Name + Created At, PartialObjectMetadata rows, list metadata copied", () => {
    const t = listToTable(
      { metadata: { resourceVersion: "9", continue: "tok", remainingItemCount: 3 }, items: [cm] },
      defaultTablePrinter,
      { now: 0 },
    );
    expect(t).toEqual({
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "9", continue: "tok", remainingItemCount: 3 },
      columnDefinitions: defaultTablePrinter.columns,
      rows: [
        {
          cells: ["a", "2026-01-01T00:00:00Z"],
          object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: cm.metadata },
        },
      ],
    });
    expect(t.columnDefinitions?.map((c) => [c.name, c.type, c.format])).toEqual([
      ["Name", "string", "name"],
      ["Created At", "date", ""],
    ]);
  });
  it("configmaps print NAME DATA AGE; DATA counts data and binaryData", () => {
    expect(tablePrinterFor("", "configmaps")).toBe(configMapTablePrinter);
    expect(tablePrinterFor("apps", "configmaps")).toBe(defaultTablePrinter);
    const cr = tablePrinterFor("example.com", "widgets", true);
    expect(cr.columns.map((c) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Age", "date"],
    ]);
    expect(
      cr.cells(
        { metadata: { name: "w", creationTimestamp: "2026-01-01T00:00:00Z" } },
        Date.parse("2026-01-01T00:05:00Z"),
      ),
    ).toEqual(["w", "5m"]);
    const t = objectToTable(cm, configMapTablePrinter, { now: Date.parse("2026-01-01T00:05:30Z") });
    expect(t.columnDefinitions?.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(t.rows[0]!.cells).toEqual(["a", 3, "5m30s"]);
    expect(t.metadata).toEqual({ resourceVersion: "7" });
  });
  it("noHeaders gives null columnDefinitions; includeObject None/Object", () => {
    const none = objectToTable(cm, defaultTablePrinter, { now: 0, noHeaders: true, includeObject: "None" });
    expect(none.columnDefinitions).toBeNull();
    expect(none.rows[0]!.object).toBeNull();
    const full = objectToTable(cm, defaultTablePrinter, { now: 0, includeObject: "Object" });
    expect(full.rows[0]!.object).toBe(cm);
  });
  it("the initial-events-end bookmark row is always PartialObjectMetadata", () => {
    const bm = { metadata: { resourceVersion: "12", annotations: { "k8s.io/initial-events-end": "true" } } };
    const t = objectToTable(bm, defaultTablePrinter, {
      now: 0,
      includeObject: "None",
      apiVersion: "meta.k8s.io/v1beta1",
    });
    expect(t.rows[0]!.object).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1beta1",
      metadata: bm.metadata,
    });
  });
});

describe("negotiateOutput", () => {
  const kubectlGet =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
  it("kubectl get's Accept picks Table v1", () => {
    expect(negotiateOutput(kubectlGet)).toEqual({ kind: "table", apiVersion: "meta.k8s.io/v1" });
  });
  it("plain, wildcard, empty and unknown Accept give JSON", () => {
    for (const a of [
      undefined,
      "",
      "application/json",
      "*/*",
      "application/json, */*",
      "application/vnd.kubernetes.protobuf",
    ]) {
      expect(negotiateOutput(a)).toEqual({ kind: "json" });
    }
  });
  it("metadata informers get PartialObjectMetadata(List), whichever endpoint asks (upstream checks the kind later)", () => {
    const accept =
      "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    expect(negotiateOutput(accept)).toEqual({ kind: "partial", apiVersion: "meta.k8s.io/v1", list: true });
    expect(negotiateOutput("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1")).toEqual({
      kind: "partial",
      apiVersion: "meta.k8s.io/v1beta1",
      list: false,
    });
  });
  it("an unsupported as=/g=/v= is skipped; with nothing else acceptable it is a 406", () => {
    expect(negotiateOutput("application/json;as=Table;v=v1;g=example.com,application/json")).toEqual({ kind: "json" });
    for (const [a, custom, types] of [
      [
        "application/json;as=Table;v=v1;g=example.com",
        false,
        "application/json, application/yaml, application/vnd.kubernetes.protobuf",
      ],
      ["application/json;as=Foo;g=meta.k8s.io;v=v1", true, "application/json, application/yaml"],
      [
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2",
        false,
        "application/json, application/yaml, application/vnd.kubernetes.protobuf",
      ],
    ] as const) {
      expect(() => negotiateOutput(a, custom)).toThrow(`only the following media types are accepted: ${types}`);
    }
  });
});

describe("asPartialObjectMetadata (meta.AsPartialObjectMetadata)", () => {
  const cm = () => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a", namespace: "ns", resourceVersion: "7", labels: { app: "x" } },
    data: { big: "y".repeat(100) },
  });

  it("keeps only the metadata, under the negotiated apiVersion", () => {
    for (const obj of [cm(), deepFreeze(cm())]) {
      expect(JSON.parse(jsonOf(asPartialObjectMetadata(obj, "meta.k8s.io/v1beta1")))).toEqual({
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1beta1",
        metadata: cm().metadata,
      });
    }
  });

  it("a stored (deep-frozen) object's view is made once per apiVersion; any other object gets a fresh one", () => {
    const stored = deepFreeze(cm());
    const v1 = asPartialObjectMetadata(stored);
    expect(asPartialObjectMetadata(stored)).toBe(v1);
    expect(Object.isFrozen(v1)).toBe(true);
    expect(asPartialObjectMetadata(stored, "meta.k8s.io/v1beta1")).not.toBe(v1);
    const plain = cm();
    expect(asPartialObjectMetadata(plain)).not.toBe(asPartialObjectMetadata(plain));
  });
});
