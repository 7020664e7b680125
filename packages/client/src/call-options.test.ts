import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { resources } from "./builtin-resources.js";
import { checkSubresource, deleteOptionsBody, patchBody, validateWriteOptions, writeQuery } from "./call-options.js";
import { customResource, RequestConstructionError } from "./resources.js";

const widgets = customResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget" });

describe("write options", () => {
  it("writeQuery sends only set options, sorted", () => {
    expect(writeQuery({}).toString()).toBe("");
    expect(writeQuery({ fieldValidation: "Warn", fieldManager: "m", dryRun: true }).toString()).toBe(
      "dryRun=All&fieldManager=m&fieldValidation=Warn",
    );
    expect(writeQuery({ dryRun: false, fieldManager: "", force: true } as never).toString()).toBe("force=true");
  });

  it("validateWriteOptions accepts 128 printable characters, unicode included", () => {
    expect(() => validateWriteOptions({ fieldManager: "é".repeat(128) })).not.toThrow();
    expect(() => validateWriteOptions({ fieldManager: 7 as never })).toThrow(/fieldManager must be a string, got 7/);
    expect(() => validateWriteOptions({ force: "yes" } as never)).toThrow(/force must be a boolean/);
  });
});

describe("patchBody", () => {
  it("passes an apply body through as given (YAML allowed) and serializes objects", () => {
    expect(patchBody(widgets, "apiVersion: v1\nkind: Widget\n", { patchType: "apply", fieldManager: "m" })).toBe(
      "apiVersion: v1\nkind: Widget\n",
    );
    expect(patchBody(widgets, { spec: { a: 1 } }, {})).toBe('{"spec":{"a":1}}');
    expect(patchBody(resources.pods, '{"a":1}', { patchType: "strategic-merge" })).toBe('{"a":1}');
    expect(patchBody(widgets, "[]", { patchType: "json" })).toBe("[]");
  });

  it("requires a body and refuses strategic merge for any non-built-in group", () => {
    expect(() => patchBody(widgets, undefined, {})).toThrow(/patch: a patch body is required/);
    expect(() => patchBody({ ...widgets, group: "metrics.example.io" }, {}, { patchType: "strategic-merge" })).toThrow(
      RequestConstructionError,
    );
    expect(patchBody({ ...widgets, group: "networking.k8s.io" }, {}, { patchType: "strategic-merge" })).toBe("{}");
  });
});

describe("deleteOptionsBody", () => {
  it("is undefined without options and a DeleteOptions with them", () => {
    expect(deleteOptionsBody({})).toBeUndefined();
    expect(deleteOptionsBody({ dryRun: false })).toBeUndefined();
    expect(JSON.parse(deleteOptionsBody({ preconditions: { uid: "u" } }) ?? "")).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "u" },
    });
    expect(() => deleteOptionsBody({ preconditions: null as never })).toThrow(
      /preconditions must be an object, got null/,
    );
  });
});

describe("checkSubresource", () => {
  it("checks listed subresources, skips unlisted custom resources, refuses empty names", () => {
    expect(() => checkSubresource(resources.deployments, "scale")).not.toThrow();
    expect(() => checkSubresource(resources.deployments, undefined)).not.toThrow();
    expect(() => checkSubresource(widgets, "anything")).not.toThrow();
    expect(() => checkSubresource(resources.deployments, "")).toThrow(/subresource may not be empty/);
    expect(() => checkSubresource(resources.leases, "status")).toThrow(
      /leases\.coordination\.k8s\.io has no subresources/,
    );
  });
});

describe("bad input is data (property)", () => {
  const anyPatchType = fc.constantFrom("merge", "strategic-merge", "json", "apply", "bogus", undefined);
  test.prop([fc.jsonValue(), anyPatchType, fc.option(fc.string()), fc.option(fc.boolean())])(
    "patchBody returns the body text or throws a RequestConstructionError, nothing else",
    (patch, patchType, fieldManager, force) => {
      const options = {
        ...(patchType !== undefined && { patchType: patchType as "merge" }),
        ...(fieldManager !== null && { fieldManager }),
        ...(force !== null && { force }),
      };
      try {
        const body = patchBody(resources.configMaps, patch, options);
        // A string patch is sent as given; anything else as its JSON.
        expect(body).toBe(typeof patch === "string" ? patch : JSON.stringify(patch));
      } catch (err) {
        expect(err).toBeInstanceOf(RequestConstructionError);
      }
    },
  );

  test.prop([
    fc.dictionary(fc.constantFrom("gracePeriodSeconds", "propagationPolicy", "preconditions", "dryRun"), fc.anything()),
  ])("deleteOptionsBody returns a DeleteOptions or undefined, or throws a RequestConstructionError", (options) => {
    try {
      const body = deleteOptionsBody(options as never);
      if (body !== undefined) expect(JSON.parse(body)).toMatchObject({ kind: "DeleteOptions", apiVersion: "v1" });
    } catch (err) {
      expect(err).toBeInstanceOf(RequestConstructionError);
    }
  });
});
