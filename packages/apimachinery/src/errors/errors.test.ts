import { describe, expect, it } from "vitest";
import {
  fromStatus,
  isAlreadyExists,
  isConflict,
  isExpired,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isResourceVersionTooLarge,
  isTimeout,
  isTooManyRequests,
  newAlreadyExists,
  newConflict,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  newResourceExpired,
  newTimeoutError,
  newTooLargeResourceVersion,
  newTooManyRequests,
  reasonForError,
  StatusError,
  suggestsClientDelay,
} from "./index.js";

const configmaps = { group: "", resource: "configmaps" };

describe("Status constructors produce kube-apiserver's bodies", () => {
  it("404 NotFound names the resource in details.kind", () => {
    const err = newNotFound(configmaps, "foo");
    expect(JSON.stringify(err.status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"foo\\" not found","reason":"NotFound","details":{"name":"foo","group":"","kind":"configmaps"},"code":404}',
    );
    expect(err.message).toBe('configmaps "foo" not found');
  });

  it("qualifies grouped resources as resource.group", () => {
    expect(newNotFound({ group: "apps", resource: "deployments" }, "web").message).toBe(
      'deployments.apps "web" not found',
    );
  });

  it("409 Conflict uses the optimistic-lock message", () => {
    expect(newConflict(configmaps, "foo").message).toBe(
      'Operation cannot be fulfilled on configmaps "foo": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("422 Invalid lists each field error as a cause and aggregates several in brackets", () => {
    const one = newInvalid({ group: "", kind: "ConfigMap" }, "Bad_Name", [
      { type: "FieldValueInvalid", field: "metadata.name", badValue: "Bad_Name", detail: "must be lowercase" },
    ]);
    expect(one.message).toBe(
      'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": must be lowercase',
    );
    expect(one.status.details?.causes).toEqual([
      { reason: "FieldValueInvalid", message: 'Invalid value: "Bad_Name": must be lowercase', field: "metadata.name" },
    ]);
    const two = newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
      { type: "FieldValueForbidden", field: "resourceVersionMatch", detail: "a" },
      { type: "FieldValueForbidden", field: "sendInitialEvents", detail: "b" },
    ]);
    expect(two.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: a, sendInitialEvents: Forbidden: b]',
    );
    expect(isInvalid(two)).toBe(true);
  });

  it("Unsupported value shows the bad value then the detail", () => {
    const err = newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
      {
        type: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        badValue: "X",
        detail: 'supported values: "Exact", "NotOlderThan", ""',
      },
    ]);
    expect(err.message).toContain('resourceVersionMatch: Unsupported value: "X": supported values: "Exact"');
  });

  it("504 too-large RV carries the ResourceVersionTooLarge cause and the retry hint", () => {
    const err = newTooLargeResourceVersion(12313646, 12313645, 1);
    expect(err.message).toBe("Timeout: Too large resource version: 12313646, current: 12313645");
    expect(err.status.details).toEqual({
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    });
    expect(err.retryAfterSeconds).toBe(1);
    expect(newTooLargeResourceVersion(5, 4, 0).status.details?.retryAfterSeconds).toBeUndefined();
  });

  it("405 and 500 messages", () => {
    expect(newMethodNotSupported(configmaps, "watch").message).toBe(
      'watch is not supported on resources of kind "configmaps"',
    );
    expect(newInternalError("boom").status.details?.causes).toEqual([{ message: "boom" }]);
  });
});

describe("predicates", () => {
  it("match by reason, and by code only when the reason is unknown", () => {
    expect(isNotFound(newNotFound(configmaps, "x"))).toBe(true);
    expect(isNotFound(newAlreadyExists(configmaps, "x"))).toBe(false);
    expect(isAlreadyExists(newAlreadyExists(configmaps, "x"))).toBe(true);
    expect(isConflict(newAlreadyExists(configmaps, "x"))).toBe(false);
    const custom = fromStatus({ kind: "Status", apiVersion: "v1", metadata: {}, reason: "SomethingNew", code: 404 });
    expect(isNotFound(custom)).toBe(true);
    const knownOther = fromStatus({ kind: "Status", apiVersion: "v1", metadata: {}, reason: "Conflict", code: 404 });
    expect(isNotFound(knownOther)).toBe(false);
  });

  it("F10: isExpired covers both Expired and Gone; isResourceExpired only Expired", () => {
    expect(isExpired(newResourceExpired("too old resource version: 2 (455)"))).toBe(true);
    expect(isExpired(newGone("gone"))).toBe(true);
    expect(isResourceExpired(newGone("gone"))).toBe(false);
    expect(isGone(newResourceExpired("x"))).toBe(false);
  });

  it("F11: too-large RV by cause, and the legacy Timeout message match", () => {
    expect(isResourceVersionTooLarge(newTooLargeResourceVersion(2, 1, 1))).toBe(true);
    expect(isResourceVersionTooLarge(newTimeoutError("Too large resource version: 5, current: 4"))).toBe(true);
    expect(isResourceVersionTooLarge(newTimeoutError("request did not complete within the allotted timeout"))).toBe(
      false,
    );
    expect(isTimeout(newTooLargeResourceVersion(2, 1, 1))).toBe(true);
  });

  it("never throw on foreign values, and recognise Status-shaped errors", () => {
    for (const v of [undefined, null, 3, "x", new Error("plain"), { status: 404 }, { status: { kind: "Pod" } }]) {
      expect(isNotFound(v)).toBe(false);
      expect(reasonForError(v)).toBe("");
    }
    const shaped = { status: { kind: "Status", apiVersion: "v1", metadata: {}, reason: "Forbidden", code: 403 } };
    expect(isForbidden(shaped)).toBe(true);
  });

  it("suggestsClientDelay reads retryAfterSeconds", () => {
    expect(suggestsClientDelay(newTooManyRequests("slow down", 7))).toBe(7);
    expect(isTooManyRequests(newTooManyRequests("slow down", 7))).toBe(true);
    expect(suggestsClientDelay(newNotFound(configmaps, "x"))).toBeUndefined();
  });

  it("StatusError is an Error with code and reason", () => {
    const err = newNotFound(configmaps, "x");
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.code).toBe(404);
    expect(err.reason).toBe("NotFound");
  });
});
