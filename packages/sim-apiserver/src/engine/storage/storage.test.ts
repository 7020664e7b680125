// MVCC storage (the etcd stand-in): reference/apiserver.md §1 (one global RV, ModRevision per object, no-op writes,
// DELETED at the delete RV, key order, history until compaction) and §6 (410 below compaction, 504 above current),
// plus the registry's create/update/delete rules and their Status messages (§7.5).
import { type KubeObject, type Status, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "../resources.js";
import { keyOf, MvccStorage, prefixOf, type StorageEvent, type StorageListOptions } from "./storage.js";

const byName = (name: string): SimResource => BUILTIN_RESOURCES.find((r) => r.resource === name)!;
const configmaps = byName("configmaps");
const namespaces = byName("namespaces");
const nodes = byName("nodes");
const pods = byName("pods");

const START = Date.UTC(2026, 0, 1, 12, 30, 45, 678);

function setup(initialRevision = 1) {
  const clock = new FakeClock(START);
  const storage = new MvccStorage(clock, seededRand(7), initialRevision);
  const events: StorageEvent[] = [];
  const revisions: number[] = [];
  storage.subscribe({ onEvent: (e) => events.push(e), onRevision: (r) => revisions.push(r) });
  return { clock, storage, events, revisions };
}

const cm = (name: string, data: Record<string, string> = { k: name }, extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name },
  data,
  ...extra,
});

/** The Status of the StatusError `fn` throws (fails the test when it does not throw one). */
function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
  throw new Error("expected a StatusError");
}

const everything: Pick<StorageListOptions, "prefix" | "limit" | "predicate"> = {
  prefix: "",
  limit: 0,
  predicate: () => true,
};
const names = (items: readonly KubeObject[]) => items.map((o) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name}`);
const rvOf = (o: KubeObject) => Number(o.metadata?.resourceVersion);
const dataV = (o: KubeObject) => (o.data as Record<string, string> | undefined)?.v;

describe("MvccStorage: resourceVersions", () => {
  it("one global RV shared by every resource; each object's RV is its modification revision", () => {
    const { storage } = setup();
    expect(storage.currentRevision).toBe(1);
    const a = storage.create(configmaps, "default", cm("a"));
    const n = storage.create(namespaces, "", { metadata: { name: "team-1" } });
    const node = storage.create(nodes, "", { metadata: { name: "node-1" } });
    const a2 = storage.update(configmaps, "default", "a", cm("a", { k: "changed" }));
    expect([a, n, node, a2].map(rvOf)).toEqual([2, 3, 4, 5]);
    expect(storage.currentRevision).toBe(5);
    // The list RV is the global revision, larger than any item's RV of that resource.
    const page = storage.list(namespaces, { ...everything, rev: 0 });
    expect(page.rev).toBe(5);
    expect(page.items.map(rvOf)).toEqual([3]);
  });

  it("starts at the configured initial revision", () => {
    const { storage } = setup(1000);
    expect(rvOf(storage.create(configmaps, "default", cm("a")))).toBe(1001);
  });

  it("a no-op update does not bump the RV and emits no event (field order does not matter)", () => {
    const { storage, events } = setup();
    const created = storage.create(configmaps, "default", cm("a", { x: "1", y: "2" }));
    events.length = 0;
    const same = storage.update(configmaps, "default", "a", {
      data: { y: "2", x: "1" },
      metadata: { resourceVersion: created.metadata?.resourceVersion, name: "a" },
    });
    expect(same).toBe(created);
    expect(storage.currentRevision).toBe(2);
    expect(events).toEqual([]);
  });

  it("delete consumes an RV and returns the last state at the delete RV; the event carries both states", () => {
    const { storage, events } = setup();
    storage.create(configmaps, "default", cm("a"));
    const current = storage.update(configmaps, "default", "a", cm("a", { k: "v2" }));
    events.length = 0;
    const last = storage.delete(configmaps, "default", "a");
    expect(rvOf(last)).toBe(4);
    expect(storage.currentRevision).toBe(4);
    expect(last.data).toEqual({ k: "v2" });
    expect(last.metadata?.uid).toBe(current.metadata?.uid);
    expect(storage.get(configmaps, "default", "a")).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "DELETED", key: "default/a", rev: 4, object: last, prevObject: current });
  });

  it("compaction writes the compaction key: the revision moves by one and listeners hear about it", () => {
    const { storage, revisions, events } = setup();
    storage.create(configmaps, "default", cm("a"));
    expect(storage.compact()).toBe(2);
    expect(storage.currentRevision).toBe(3);
    expect(storage.compactedRevision).toBe(2);
    expect(revisions).toEqual([3]);
    expect(events.map((e) => e.type)).toEqual(["ADDED"]);
    // Compacting to an older revision than already compacted changes nothing.
    expect(storage.compact(1)).toBe(2);
    expect(storage.currentRevision).toBe(3);
  });
});

describe("MvccStorage: create", () => {
  it("fills uid, creationTimestamp, resourceVersion, kind/apiVersion and the namespace; never keeps the input", () => {
    const { storage } = setup();
    const input = cm("a", { k: "v" }, { metadata: { name: "a", generation: 7, labels: { app: "x" } } });
    const copy = structuredClone(input);
    const o = storage.create(configmaps, "default", input);
    expect(input).toEqual(copy);
    expect(o).toMatchObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "a",
        namespace: "default",
        resourceVersion: "2",
        creationTimestamp: "2026-01-01T12:30:45Z",
        labels: { app: "x" },
      },
      data: { k: "v" },
    });
    expect(o.metadata?.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Objects without a spec have no generation, whatever the body said.
    expect(o.metadata?.generation).toBeUndefined();
    expect(Object.isFrozen(o) && Object.isFrozen(o.metadata)).toBe(true);
  });

  it("objects with a spec start at generation 1", () => {
    const { storage } = setup();
    const p = storage.create(pods, "default", { metadata: { name: "p", generation: 5 }, spec: { nodeName: "n1" } });
    expect(p.metadata?.generation).toBe(1);
  });

  it("generateName: the prefix plus five characters of the upstream alphabet; uids differ", () => {
    const { storage } = setup();
    const made = [1, 2, 3].map(() => storage.create(configmaps, "default", { metadata: { generateName: "job-" } }));
    for (const o of made) expect(o.metadata?.name).toMatch(/^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(new Set(made.map((o) => o.metadata?.uid)).size).toBe(3);
    expect(new Set(made.map((o) => o.metadata?.name)).size).toBe(3);
  });

  it("AlreadyExists: 409 with the real message and details; the RV does not move", () => {
    const { storage } = setup();
    storage.create(configmaps, "default", cm("a"));
    expect(statusOf(() => storage.create(configmaps, "default", cm("a")))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "a" already exists',
      reason: "AlreadyExists",
      details: { name: "a", group: "", kind: "configmaps" },
      code: 409,
    });
    expect(storage.currentRevision).toBe(2);
  });

  it("400 when the body's namespace differs from the request's", () => {
    const { storage } = setup();
    const s = statusOf(() => storage.create(configmaps, "default", { metadata: { name: "a", namespace: "other" } }));
    expect([s.code, s.reason, s.message]).toEqual([
      400,
      "BadRequest",
      "the namespace of the provided object does not match the namespace sent on the request",
    ]);
  });

  it("a non-zero resourceVersion in the body → 500 without reason (etcd's plain error), as kube-apiserver", () => {
    const { storage } = setup();
    expect(
      statusOf(() => storage.create(configmaps, "default", { metadata: { name: "a", resourceVersion: "5" } })),
    ).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "resourceVersion should not be set on objects to be created",
      reason: "",
      code: 500,
    });
    expect(storage.currentRevision).toBe(1);
  });

  it.each(["0", "-1", "abc"])("a resourceVersion %j that does not parse as non-zero is replaced", (rv) => {
    const { storage } = setup();
    expect(
      storage.create(configmaps, "default", { metadata: { name: "a", resourceVersion: rv } }).metadata,
    ).toMatchObject({ resourceVersion: "2" });
  });

  const SUBDOMAIN =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start " +
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const LABEL =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end " +
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  it.each([
    {
      what: "ConfigMap with an upper-case name",
      r: configmaps,
      obj: { metadata: { name: "Bad_Name" } },
      message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN}`,
      details: {
        name: "Bad_Name",
        group: "",
        kind: "ConfigMap",
        causes: [
          { reason: "FieldValueInvalid", message: `Invalid value: "Bad_Name": ${SUBDOMAIN}`, field: "metadata.name" },
        ],
      },
    },
    {
      what: "ConfigMap without a name",
      r: configmaps,
      obj: { metadata: {} },
      message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      details: {
        name: "",
        group: "",
        kind: "ConfigMap",
        causes: [
          {
            reason: "FieldValueRequired",
            message: "Required value: name or generateName is required",
            field: "metadata.name",
          },
        ],
      },
    },
    {
      what: "Namespace with a dot (namespaces are DNS labels)",
      r: namespaces,
      obj: { metadata: { name: "a.b" } },
      message: 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots',
      details: {
        name: "a.b",
        group: "",
        kind: "Namespace",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: 'Invalid value: "a.b": must not contain dots',
            field: "metadata.name",
          },
        ],
      },
    },
    {
      what: "Namespace with an underscore",
      r: namespaces,
      obj: { metadata: { name: "a_b" } },
      message: `Namespace "a_b" is invalid: metadata.name: Invalid value: "a_b": ${LABEL}`,
      details: {
        name: "a_b",
        group: "",
        kind: "Namespace",
        causes: [{ reason: "FieldValueInvalid", message: `Invalid value: "a_b": ${LABEL}`, field: "metadata.name" }],
      },
    },
  ])("invalid names → 422 with causes: $what", ({ r, obj, message, details }) => {
    const { storage } = setup();
    const s = statusOf(() => storage.create(r, r.namespaced ? "default" : "", obj as KubeObject));
    expect(s).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason: "Invalid",
      details,
      code: 422,
    });
    expect(storage.currentRevision).toBe(1);
  });
});

describe("MvccStorage: update", () => {
  it("stale resourceVersion → 409 Conflict with the optimistic-lock message; none → unconditional", () => {
    const { storage } = setup();
    storage.create(configmaps, "default", cm("a"));
    storage.update(configmaps, "default", "a", cm("a", { k: "v2" }));
    const stale = { metadata: { name: "a", resourceVersion: "2" }, data: { k: "v3" } };
    expect(statusOf(() => storage.update(configmaps, "default", "a", stale))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes ' +
        "to the latest version and try again",
      reason: "Conflict",
      details: { name: "a", group: "", kind: "configmaps" },
      code: 409,
    });
    expect(storage.currentRevision).toBe(3);
    const fresh = storage.update(configmaps, "default", "a", { ...stale, metadata: { resourceVersion: "3" } });
    expect([rvOf(fresh), fresh.data]).toEqual([4, { k: "v3" }]);
    const blind = storage.update(configmaps, "default", "a", cm("a", { k: "v4" }));
    expect(rvOf(blind)).toBe(5);
  });

  it("keeps uid and creationTimestamp; generation moves only when the spec changes", async () => {
    const { storage, clock } = setup();
    const p = storage.create(pods, "default", { metadata: { name: "p" }, spec: { nodeName: "n1" } });
    await clock.step(5000);
    const relabelled = storage.update(pods, "default", "p", {
      metadata: { name: "p", uid: "forged", creationTimestamp: "1999-01-01T00:00:00Z", labels: { a: "b" } },
      spec: { nodeName: "n1" },
    });
    expect(relabelled.metadata).toMatchObject({
      uid: p.metadata?.uid,
      creationTimestamp: p.metadata?.creationTimestamp,
      generation: 1,
      resourceVersion: "3",
    });
    const moved = storage.update(pods, "default", "p", { metadata: { name: "p" }, spec: { nodeName: "n2" } });
    expect(moved.metadata?.generation).toBe(2);
  });

  it("NotFound: 404 for update, delete and an absent get", () => {
    const { storage } = setup();
    const expected = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "nope" not found',
      reason: "NotFound",
      details: { name: "nope", group: "", kind: "configmaps" },
      code: 404,
    };
    expect(statusOf(() => storage.update(configmaps, "default", "nope", cm("nope")))).toEqual(expected);
    expect(statusOf(() => storage.delete(configmaps, "default", "nope"))).toEqual(expected);
    expect(storage.get(configmaps, "default", "nope")).toBeUndefined();
    expect(storage.currentRevision).toBe(1);
  });

  it("400 when the body names another object", () => {
    const { storage } = setup();
    storage.create(configmaps, "default", cm("a"));
    const s = statusOf(() => storage.update(configmaps, "default", "a", cm("b")));
    expect([s.code, s.message]).toEqual([400, "the name of the object (b) does not match the name on the URL (a)"]);
  });
});

describe("MvccStorage: delete preconditions", () => {
  it.each([
    {
      pre: { uid: "other" },
      message: (uid: string) => `Precondition failed: UID in precondition: other, UID in object meta: ${uid}`,
    },
    {
      pre: { resourceVersion: "1" },
      message: () => "Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 2",
    },
  ])("mismatch $pre → 409 Conflict", ({ pre, message }) => {
    const { storage } = setup();
    const o = storage.create(configmaps, "default", cm("a"));
    const s = statusOf(() => storage.delete(configmaps, "default", "a", pre));
    expect([s.code, s.reason, s.message]).toEqual([
      409,
      "Conflict",
      `Operation cannot be fulfilled on configmaps "a": ${message(o.metadata?.uid as string)}`,
    ]);
    expect(storage.currentRevision).toBe(2);
    expect(
      rvOf(storage.delete(configmaps, "default", "a", { uid: o.metadata?.uid as string, resourceVersion: "2" })),
    ).toBe(3);
  });
});

describe("MvccStorage: scope and key order", () => {
  it("namespaced keys are <namespace>/<name>; the same name lives in two namespaces", () => {
    const { storage } = setup();
    storage.create(configmaps, "b", cm("x"));
    storage.create(configmaps, "a", cm("x"));
    expect(keyOf(configmaps, "a", "x")).toBe("a/x");
    expect(storage.get(configmaps, "a", "x")?.metadata?.namespace).toBe("a");
    expect(storage.get(configmaps, "b", "x")?.metadata?.namespace).toBe("b");
    expect(storage.count(configmaps)).toBe(2);
  });

  it("cluster-scoped objects have no namespace, even when the body gives one", () => {
    const { storage } = setup();
    const n = storage.create(nodes, "", { metadata: { name: "node-1", namespace: "default" } });
    expect(n.metadata?.namespace).toBeUndefined();
    expect(keyOf(nodes, "", "node-1")).toBe("node-1");
    expect(prefixOf(nodes, "default")).toBe("");
    const u = storage.update(nodes, "", "node-1", { metadata: { name: "node-1", namespace: "x" }, spec: {} });
    expect(u.metadata?.namespace).toBeUndefined();
  });

  it("lists are sorted by key (namespace, then name) and a namespace prefix lists only that namespace", () => {
    const { storage } = setup();
    for (const [ns, name] of [
      ["b", "2"],
      ["a", "z"],
      ["b", "1"],
      ["a", "b"],
      ["ab", "a"],
    ] as const)
      storage.create(configmaps, ns, cm(name));
    expect(names(storage.list(configmaps, { ...everything, rev: 0 }).items)).toEqual([
      "a/b",
      "a/z",
      "ab/a",
      "b/1",
      "b/2",
    ]);
    expect(names(storage.list(configmaps, { ...everything, prefix: "a/", rev: 0 }).items)).toEqual(["a/b", "a/z"]);
  });

  it("pages: limit, lastKey and the count of the keys after the page; fromKey resumes", () => {
    const { storage } = setup();
    for (const n of ["e", "d", "c", "b", "a"]) storage.create(configmaps, "ns", cm(n));
    const p1 = storage.list(configmaps, { ...everything, limit: 2, rev: 0 });
    expect([names(p1.items), p1.lastKey, p1.remaining, p1.rev]).toEqual([["ns/a", "ns/b"], "ns/b", 3, 6]);
    const p2 = storage.list(configmaps, { ...everything, limit: 3, rev: 6, fromKey: "ns/b\u0000" });
    expect([names(p2.items), p2.lastKey, p2.remaining]).toEqual([["ns/c", "ns/d", "ns/e"], undefined, 0]);
    // A filter may leave a page short; the page still says more keys follow.
    const odd = storage.list(configmaps, {
      ...everything,
      limit: 1,
      rev: 0,
      predicate: (o) => o.metadata?.name !== "a",
    });
    expect([names(odd.items), odd.lastKey]).toEqual([["ns/b"], "ns/b"]);
  });
});

describe("MvccStorage: history and compaction", () => {
  it("reads at an old revision see the objects as they were (deleted ones back, later ones absent)", () => {
    const { storage } = setup();
    storage.create(configmaps, "ns", cm("a", { v: "1" })); // 2
    storage.create(configmaps, "ns", cm("b", { v: "1" })); // 3
    storage.update(configmaps, "ns", "a", cm("a", { v: "2" })); // 4
    storage.delete(configmaps, "ns", "b"); // 5
    storage.create(configmaps, "ns", cm("c", { v: "1" })); // 6
    const at = (rev: number) =>
      storage.list(configmaps, { ...everything, rev }).items.map((o) => `${o.metadata?.name}@${rvOf(o)}:${dataV(o)}`);
    expect(at(1)).toEqual([]);
    expect(at(3)).toEqual(["a@2:1", "b@3:1"]);
    expect(at(4)).toEqual(["a@4:2", "b@3:1"]);
    expect(at(5)).toEqual(["a@4:2"]);
    expect(at(6)).toEqual(["a@4:2", "c@6:1"]);
    // remaining counts only keys that existed at that revision.
    const old = storage.list(configmaps, { ...everything, rev: 3, limit: 1 });
    expect([old.lastKey, old.remaining]).toEqual(["ns/a", 1]);
    expect(storage.list(configmaps, { ...everything, rev: 5, limit: 1 }).lastKey).toBeUndefined();
  });

  it("compact → reads below the compacted revision are 410; at it and above still work", () => {
    const { storage } = setup();
    storage.create(configmaps, "ns", cm("a", { v: "1" })); // 2
    storage.update(configmaps, "ns", "a", cm("a", { v: "2" })); // 3
    storage.create(configmaps, "ns", cm("b")); // 4
    storage.delete(configmaps, "ns", "b"); // 5
    storage.compact(4); // compaction key: 6
    expect(statusOf(() => storage.list(configmaps, { ...everything, rev: 3 }))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "The resourceVersion for the provided list is too old.",
      reason: "Expired",
      code: 410,
    });
    expect(names(storage.list(configmaps, { ...everything, rev: 4 }).items)).toEqual(["ns/a", "ns/b"]);
    expect(names(storage.list(configmaps, { ...everything, rev: 5 }).items)).toEqual(["ns/a"]);
    expect(storage.list(configmaps, { ...everything, rev: 6 }).rev).toBe(6);
  });

  it("a read above the current revision → 504 Too large resource version without Retry-After (etcd path)", () => {
    const { storage } = setup();
    storage.create(configmaps, "ns", cm("a"));
    expect(statusOf(() => storage.list(configmaps, { ...everything, rev: 9 }))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Timeout: Too large resource version: 9, current: 2",
      reason: "Timeout",
      details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
      code: 504,
    });
  });
});

// ---- model-based: random writes and compactions against a Map + counter ---------------------------------------

type Op =
  | { readonly op: "create" | "update" | "delete"; readonly ns: string; readonly name: string; readonly v: string }
  | { readonly op: "touch-namespace" }
  | { readonly op: "compact"; readonly back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constantFrom("create" as const, "update" as const, "delete" as const),
      ns: fc.constantFrom("a", "b"),
      name: fc.constantFrom("x", "y", "z", "x1"),
      v: fc.constantFrom("1", "2"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "touch-namespace" as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const), back: fc.nat(4) }) },
);

interface ModelEntry {
  readonly v: string;
  readonly rv: number;
}

describe("MvccStorage: model-based", () => {
  it("random create/update/delete/compact sequences match a Map + counter at every retained revision", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { storage } = setup();
        let rev = 1;
        let compacted = 0;
        let live = new Map<string, ModelEntry>();
        const states = new Map<number, Map<string, ModelEntry>>([[1, live]]);
        const commit = (next: Map<string, ModelEntry>) => {
          rev++;
          live = next;
          states.set(rev, live);
        };
        let nsCount = 0;
        for (const o of ops) {
          if (o.op === "touch-namespace") {
            storage.create(namespaces, "", { metadata: { name: `ns-${nsCount++}` } });
            commit(live);
          } else if (o.op === "compact") {
            const target = Math.max(1, rev - o.back);
            const got = storage.compact(target);
            if (target > compacted) {
              compacted = target;
              commit(live);
            }
            expect(got).toBe(compacted);
          } else {
            const key = `${o.ns}/${o.name}`;
            const had = live.get(key);
            const body = { metadata: { name: o.name }, data: { v: o.v } };
            const run = () =>
              o.op === "create"
                ? storage.create(configmaps, o.ns, body)
                : o.op === "update"
                  ? storage.update(configmaps, o.ns, o.name, body)
                  : storage.delete(configmaps, o.ns, o.name);
            const expectedCode = o.op === "create" ? (had ? 409 : 0) : had ? 0 : 404;
            if (expectedCode !== 0) {
              expect(statusOf(run).code).toBe(expectedCode);
            } else if (o.op === "update" && had?.v === o.v) {
              expect(rvOf(run())).toBe(had.rv); // no-op
            } else {
              const next = new Map(live);
              if (o.op === "delete") next.delete(key);
              else next.set(key, { v: o.v, rv: rev + 1 });
              commit(next);
              expect(rvOf(run())).toBe(rev);
            }
          }
          expect(storage.currentRevision).toBe(rev);
        }
        // Every retained revision lists exactly the model's state; older ones are 410.
        for (let r = 1; r <= rev; r++) {
          if (r < compacted) {
            expect(statusOf(() => storage.list(configmaps, { ...everything, rev: r })).code).toBe(410);
            continue;
          }
          const want = [...states.get(r)!.entries()]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, e]) => `${k}@${e.rv}=${e.v}`);
          const page = storage.list(configmaps, { ...everything, rev: r });
          expect(page.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}@${rvOf(o)}=${dataV(o)}`)).toEqual(
            want,
          );
          expect(page.rev).toBe(r);
        }
        expect(storage.list(configmaps, { ...everything, rev: 0 }).rev).toBe(rev);
      }),
      { numRuns: 200 },
    );
  });
});

describe("MvccStorage: keys scanned", () => {
  it("counts every key a page examined, matching or not (the cost model's keys scanned)", () => {
    const { storage: s } = setup();
    for (let i = 0; i < 10; i++) s.create(configmaps, "default", cm(`c${i}`, { k: i % 3 === 0 ? "hit" : "miss" }));
    const hit = (o: KubeObject) => (o.data as Record<string, string>).k === "hit";
    const page = s.list(configmaps, { prefix: "default/", rev: 0, limit: 2, predicate: hit });
    expect(names(page.items)).toEqual(["default/c0", "default/c3"]);
    expect(page.scanned).toBe(4); // c0, c1, c2, c3
    const all = s.list(configmaps, { prefix: "default/", rev: 0, limit: 0, predicate: hit });
    expect([all.items.length, all.scanned]).toEqual([4, 10]);
  });
});
