import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  deletionHandlingMetaNamespaceKeyFunc,
  explicitKey,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from "./keys.js";
import {
  deletionHandlingObjectToName,
  metaObjectToName,
  newObjectName,
  ObjectName,
  objectToName,
  parseObjectName,
} from "./object-names.js";
import { KeyError } from "./store.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

const segment = fc.stringMatching(/^[a-z0-9.-]{0,12}$/);

describe("S1: metaNamespaceKeyFunc", () => {
  it("S1: namespaced object gives ns/name", () => {
    expect(metaNamespaceKeyFunc({ metadata: { namespace: "ns", name: "a" } })).toBe("ns/a");
  });
  it("S1: cluster-scoped object (no or empty namespace) gives name", () => {
    expect(metaNamespaceKeyFunc({ metadata: { name: "a" } })).toBe("a");
    expect(metaNamespaceKeyFunc({ metadata: { namespace: "", name: "a" } })).toBe("a");
  });
  it("S1: missing name reads as empty string, like Go's GetName()", () => {
    expect(metaNamespaceKeyFunc({ metadata: { namespace: "ns" } })).toBe("ns/");
    expect(metaNamespaceKeyFunc({ metadata: {} })).toBe("");
  });
  it("S1: an ExplicitKey is returned as-is, even with several slashes", () => {
    expect(metaNamespaceKeyFunc(explicitKey("a/b/c"))).toBe("a/b/c");
    expect(metaNamespaceKeyFunc(explicitKey(""))).toBe("");
  });
  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an object without metadata", { kind: "Pod" }],
    ["an object with null metadata", { metadata: null }],
    ["an object with array metadata", { metadata: [] }],
  ])("S1: %s gives a KeyError 'object has no meta: …'", (_label, obj) => {
    let caught: unknown;
    try {
      metaNamespaceKeyFunc(obj);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyError);
    expect((caught as KeyError).message).toMatch(/^object has no meta: /);
    expect((caught as KeyError).object).toBe(obj);
  });
});

describe("S2: splitMetaNamespaceKey (edge case 7)", () => {
  it.each([
    ["", ["", ""]],
    ["a", ["", "a"]],
    ["a/b", ["a", "b"]],
    ["a/", ["a", ""]],
    ["/b", ["", "b"]],
    ["/", ["", ""]],
  ])("S2: %j splits to %j", (key, expected) => {
    expect(splitMetaNamespaceKey(key)).toEqual(expected);
  });
  it.each(["a/b/c", "//", "a//b", "/a/b"])("S2: %j is an error 'unexpected key format'", (key) => {
    expect(() => splitMetaNamespaceKey(key)).toThrow(`unexpected key format: ${JSON.stringify(key)}`);
  });

  test.prop([segment, segment])("S2/edge 7: round trip of namespaced and cluster-scoped keys", (ns, name) => {
    const obj = { metadata: { namespace: ns, name } };
    const key = metaNamespaceKeyFunc(obj);
    const [gotNs, gotName] = splitMetaNamespaceKey(key);
    // A namespaced object round-trips exactly; a cluster-scoped one (ns === "") comes back with "" namespace.
    expect(gotNs).toBe(ns);
    expect(gotName).toBe(name);
  });

  test.prop([fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 10 }).map((cs) => cs.join(""))])(
    "S2: matches Go strings.Split semantics on arbitrary keys",
    (key) => {
      const parts = key.split("/");
      if (parts.length === 1) expect(splitMetaNamespaceKey(key)).toEqual(["", parts[0]]);
      else if (parts.length === 2) expect(splitMetaNamespaceKey(key)).toEqual(parts);
      else expect(() => splitMetaNamespaceKey(key)).toThrow(/unexpected key format/);
    },
  );
});

describe("S3: deletionHandlingMetaNamespaceKeyFunc", () => {
  it("S3: a tombstone yields its key, whatever its object", () => {
    expect(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown("x/y/z", undefined))).toBe("x/y/z");
    const stale = { metadata: { namespace: "other", name: "thing" } };
    expect(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown("ns/a", stale))).toBe("ns/a");
  });
  it("S3: anything else goes to metaNamespaceKeyFunc", () => {
    expect(deletionHandlingMetaNamespaceKeyFunc({ metadata: { namespace: "ns", name: "a" } })).toBe("ns/a");
    expect(() => deletionHandlingMetaNamespaceKeyFunc({})).toThrow(KeyError);
  });
});

describe("S4: ObjectName", () => {
  it("S4: toString uses the S1 encoding and parts() inverts the constructor", () => {
    expect(newObjectName("ns", "a").toString()).toBe("ns/a");
    expect(newObjectName("", "a").toString()).toBe("a");
    expect(`${newObjectName("ns", "a")}`).toBe("ns/a");
    expect(newObjectName("ns", "a").parts()).toEqual(["ns", "a"]);
  });
  it("S4: objectToName / metaObjectToName", () => {
    expect(objectToName({ metadata: { namespace: "ns", name: "a" } })).toEqual(new ObjectName("ns", "a"));
    expect(objectToName({ metadata: { name: "a" } })).toEqual(new ObjectName("", "a"));
    expect(metaObjectToName({})).toEqual(new ObjectName("", ""));
    expect(() => objectToName("ns/a")).toThrow(/^object has no meta: /);
  });
  it("S4: deletionHandlingObjectToName parses the tombstone key", () => {
    expect(deletionHandlingObjectToName(new DeletedFinalStateUnknown("ns/a", undefined))).toEqual(
      new ObjectName("ns", "a"),
    );
    expect(() => deletionHandlingObjectToName(new DeletedFinalStateUnknown("a/b/c", undefined))).toThrow(
      /unexpected key format/,
    );
    expect(deletionHandlingObjectToName({ metadata: { name: "n" } })).toEqual(new ObjectName("", "n"));
  });

  // Port of TestObjectNames: random 10-character strings over "abcdefghi/".
  test.prop([fc.array(fc.constantFrom(..."abcdefghi/"), { minLength: 10, maxLength: 10 }).map((c) => c.join(""))])(
    "TestObjectNames: parse/toString is the identity except for a leading '/'",
    (encoded) => {
      const parts = encoded.split("/");
      if (parts.length > 2) {
        expect(() => parseObjectName(encoded)).toThrow(/unexpected key format/);
        return;
      }
      const on = parseObjectName(encoded);
      const expected = parts.length === 2 ? new ObjectName(parts[0]!, parts[1]!) : new ObjectName("", encoded);
      expect(on).toEqual(expected);
      const recoded = encoded.startsWith("/") ? "/" + on.toString() : on.toString();
      expect(recoded).toBe(encoded);
    },
  );
});
