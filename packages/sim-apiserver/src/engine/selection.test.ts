// Label and field selection of list/watch requests: reference/apiserver.md §2 (selectors: bad label selector → 400,
// unsupported field label → 400 with the real message) and the field labels of §5.3 (pods' spec.nodeName).
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "./resources.js";
import { parseSelection, parseSelectors, selectionFor } from "./selection.js";

const byName = (name: string): SimResource => BUILTIN_RESOURCES.find((r) => r.resource === name)!;
const configmaps = byName("configmaps");
const pods = byName("pods");
const secrets = byName("secrets");

const objects: KubeObject[] = [
  { metadata: { name: "a", namespace: "ns1", labels: { app: "web", env: "prod" } }, spec: { nodeName: "n1" } },
  { metadata: { name: "b", namespace: "ns1", labels: { app: "db" } }, spec: { nodeName: "n2" } },
  { metadata: { name: "c", namespace: "ns2", labels: { app: "web", env: "dev" } }, spec: {} },
  { metadata: { name: "d", namespace: "ns2" } },
];

/** Names of {@link objects} that a selection on `r` matches. */
function selected(r: SimResource, labelSelector?: string, fieldSelector?: string): string[] {
  const sel = parseSelection(r, labelSelector, fieldSelector);
  return objects.filter(sel.matches).map((o) => o.metadata?.name as string);
}

function badRequest(r: SimResource, labelSelector: string | undefined, fieldSelector: string | undefined): string {
  try {
    parseSelection(r, labelSelector, fieldSelector);
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    expect([err.code, err.reason]).toEqual([400, "BadRequest"]);
    return err.message;
  }
  throw new Error("selection was accepted");
}

describe("parseSelection: label selectors", () => {
  it.each([
    { selector: "", want: ["a", "b", "c", "d"] },
    { selector: "app=web", want: ["a", "c"] },
    { selector: "app==web,env=prod", want: ["a"] },
    { selector: "app!=web", want: ["b", "d"] },
    { selector: "app in (db, web),env notin (dev)", want: ["a", "b"] },
    { selector: "env", want: ["a", "c"] },
    { selector: "!env", want: ["b", "d"] },
  ])("'$selector'", ({ selector, want }) => {
    expect(selected(configmaps, selector)).toEqual(want);
  });

  it("a bad label selector → 400 with the parser's message", () => {
    expect(badRequest(configmaps, "x nott in (y)", undefined)).toBe(
      "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt",
    );
  });
});

describe("parseSelection: field selectors", () => {
  it.each([
    { r: configmaps, selector: "metadata.name=b", want: ["b"] },
    { r: configmaps, selector: "metadata.name!=b", want: ["a", "c", "d"] },
    { r: configmaps, selector: "metadata.namespace=ns2", want: ["c", "d"] },
    { r: configmaps, selector: "metadata.namespace==ns1,metadata.name=a", want: ["a"] },
    { r: pods, selector: "spec.nodeName=n1", want: ["a"] },
    { r: pods, selector: "spec.nodeName=", want: ["c", "d"] },
    { r: pods, selector: "spec.nodeName!=n1", want: ["b", "c", "d"] },
  ])("$r.resource '$selector'", ({ r, selector, want }) => {
    expect(selected(r, undefined, selector)).toEqual(want);
  });

  it("labels and fields together", () => {
    expect(selected(pods, "app=web", "spec.nodeName=n1")).toEqual(["a"]);
  });

  it.each([
    {
      what: "a resource with only the default field labels",
      r: configmaps,
      field: "spec.nodeName=n1",
      message: '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
    { what: "pods", r: pods, field: "spec.foo=x", message: "field label not supported: spec.foo" },
    { what: "secrets", r: secrets, field: "data.x=1", message: "field label not supported: data.x" },
    {
      what: "an unparsable term",
      r: configmaps,
      field: "metadata.name",
      message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    },
  ])("unsupported or bad field selector on $what → 400", ({ r, field, message }) => {
    expect(badRequest(r, undefined, field)).toBe(message);
  });
});

describe("parseSelection: emptiness (remainingItemCount is reported only without selectors)", () => {
  it.each([
    { label: undefined, field: undefined, empty: true },
    { label: "", field: "", empty: true },
    { label: "app=web", field: undefined, empty: false },
    { label: undefined, field: "metadata.name=a", empty: false },
  ])("label '$label', field '$field' → empty $empty", ({ label, field, empty }) => {
    expect(parseSelection(configmaps, label, field).empty).toBe(empty);
  });
});

describe("parseSelectors / selectionFor: the syntax parse and the field-label check are separate steps (§2 order)", () => {
  const status = (fn: () => unknown): [number, string] => {
    try {
      fn();
    } catch (err) {
      if (err instanceof StatusError) return [err.code, err.message];
      throw err;
    }
    return [0, "accepted"];
  };
  it("the syntax parse accepts an unknown field label; only selectionFor rejects it", () => {
    const parsed = parseSelectors(undefined, "spec.foo=x");
    expect(parsed.fields.requiresExactMatch("spec.foo")).toBe("x");
    expect(status(() => selectionFor(configmaps, parsed))).toEqual([
      400,
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ]);
  });
  it.each([
    { label: "x nott in (y)", field: undefined },
    { label: undefined, field: "metadata.name" },
  ])("malformed syntax fails the syntax parse (label '$label', field '$field')", ({ label, field }) => {
    expect(status(() => parseSelectors(label, field))[0]).toBe(400);
  });
  it("selectionFor on a parsed selector selects what parseSelection selects", () => {
    const sel = selectionFor(pods, parseSelectors("app=web", "spec.nodeName=n1"));
    expect(objects.filter(sel.matches).map((o) => o.metadata?.name)).toEqual(
      selected(pods, "app=web", "spec.nodeName=n1"),
    );
  });
});
