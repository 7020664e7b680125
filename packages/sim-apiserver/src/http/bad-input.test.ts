// Issue #4 "Bad input", one table: every malformed request against the engine-backed HTTP server gets a real
// Kubernetes Status (exact body, key order, code, headers), nothing is written (the global resourceVersion and the
// stored objects do not change), and the server keeps serving afterwards.
import { failureStatus as failure } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw, type RequestOptions } from "./http-client.test-util.js";

const CM = "/api/v1/namespaces/default/configmaps";
const json = { "content-type": "application/json" };

interface Case {
  readonly name: string;
  readonly path: string;
  readonly req?: RequestOptions;
  readonly code: number;
  /** The exact Status body, or a matcher for the V8-dependent parse errors. */
  readonly body: unknown;
}

const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1123_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const post = (body: string | Buffer): RequestOptions => ({ method: "POST", headers: json, body });

const CASES: readonly Case[] = [
  {
    name: "malformed JSON body → 400 BadRequest naming the kind, with the hex summary",
    path: CM,
    req: post('{"metadata": {'),
    code: 400,
    body: failure(
      400,
      "BadRequest",
      expect.stringMatching(
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .+ \(7b226d65746164617461223a207b\)$/,
      ) as unknown as string,
    ),
  },
  {
    name: "a JSON array is not an object → 400",
    path: CM,
    req: post("[1]"),
    code: 400,
    body: failure(
      400,
      "BadRequest",
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`,
    ),
  },
  {
    name: "wrong kind for the endpoint → 400",
    path: CM,
    req: post(JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } })),
    code: 400,
    body: failure(
      400,
      "BadRequest",
      'Secret in version "v1" cannot be handled as a ConfigMap: the kind "Secret" is not served by this endpoint',
    ),
  },
  {
    name: "wrong apiVersion for the endpoint → 400",
    path: CM,
    req: post(JSON.stringify({ apiVersion: "apps/v1", kind: "ConfigMap", metadata: { name: "x" } })),
    code: 400,
    body: failure(
      400,
      "BadRequest",
      "the API version in the data (apps/v1) does not match the expected API version (v1)",
    ),
  },
  {
    name: "invalid name (DNS-1123 subdomain) → 422 Invalid with causes",
    path: CM,
    req: post(JSON.stringify(configMap("Bad_Name"))),
    code: 422,
    body: failure(
      422,
      "Invalid",
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`,
      {
        name: "Bad_Name",
        kind: "ConfigMap",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: `Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`,
            field: "metadata.name",
          },
        ],
      },
    ),
  },
  {
    name: "namespace name with a dot (DNS-1123 label) → 422 'must not contain dots'",
    path: "/api/v1/namespaces",
    req: post(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "a.b" } })),
    code: 422,
    body: failure(
      422,
      "Invalid",
      'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots',
      {
        name: "a.b",
        kind: "Namespace",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: 'Invalid value: "a.b": must not contain dots',
            field: "metadata.name",
          },
        ],
      },
    ),
  },
  {
    name: "invalid namespace name (DNS-1123 label) → 422 Invalid with causes",
    path: "/api/v1/namespaces",
    req: post(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "Bad_NS" } })),
    code: 422,
    body: failure(
      422,
      "Invalid",
      `Namespace "Bad_NS" is invalid: metadata.name: Invalid value: "Bad_NS": ${DNS1123_LABEL}`,
      {
        name: "Bad_NS",
        kind: "Namespace",
        causes: [
          { reason: "FieldValueInvalid", message: `Invalid value: "Bad_NS": ${DNS1123_LABEL}`, field: "metadata.name" },
        ],
      },
    ),
  },
  {
    name: "no name and no generateName → 422 Required",
    path: CM,
    req: post(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: {} })),
    code: 422,
    body: failure(
      422,
      "Invalid",
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      {
        kind: "ConfigMap",
        causes: [
          {
            reason: "FieldValueRequired",
            message: "Required value: name or generateName is required",
            field: "metadata.name",
          },
        ],
      },
    ),
  },
  {
    name: "object namespace differs from the URL's → 400",
    path: CM,
    req: post(JSON.stringify(configMap("x", {}, "other"))),
    code: 400,
    body: failure(
      400,
      "BadRequest",
      "the namespace of the provided object does not match the namespace sent on the request",
    ),
  },
  {
    name: "PUT whose body names another object → 400",
    path: `${CM}/existing`,
    req: { method: "PUT", headers: json, body: JSON.stringify(configMap("other")) },
    code: 400,
    body: failure(400, "BadRequest", "the name of the object (other) does not match the name on the URL (existing)"),
  },
  {
    name: "body over 3 MiB → 413 RequestEntityTooLarge",
    path: CM,
    req: post(Buffer.alloc(3 * 1024 * 1024 + 1, 0x20)),
    code: 413,
    body: failure(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728"),
  },
  {
    name: "non-numeric resourceVersion on list → 400",
    path: `${CM}?resourceVersion=abc`,
    code: 400,
    body: failure(
      400,
      "BadRequest",
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    ),
  },
  {
    name: "non-numeric resourceVersion on watch → 400",
    path: `${CM}?watch=true&resourceVersion=abc`,
    code: 400,
    body: failure(
      400,
      "BadRequest",
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    ),
  },
  {
    name: "non-integer limit → 400 with Go's ParseInt message",
    path: `${CM}?limit=ten`,
    code: 400,
    body: failure(400, "BadRequest", 'strconv.ParseInt: parsing "ten": invalid syntax'),
  },
  {
    name: "limit beyond int64 → 400 out of range",
    path: `${CM}?limit=99999999999999999999`,
    code: 400,
    body: failure(400, "BadRequest", 'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
  },
  {
    name: "non-integer timeoutSeconds → 400",
    path: `${CM}?watch=1&timeoutSeconds=5s`,
    code: 400,
    body: failure(400, "BadRequest", 'strconv.ParseInt: parsing "5s": invalid syntax'),
  },
  {
    name: "undecodable continue token → 400",
    path: `${CM}?limit=1&continue=%21%21%21`,
    code: 400,
    body: failure(
      400,
      "BadRequest",
      expect.stringMatching(/^invalid continue token: continue key is not valid/) as unknown as string,
    ),
  },
  {
    name: "continue with a resourceVersion → 400",
    path: `${CM}?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Miwic3RhcnQiOiJhXHUwMDAwIn0&resourceVersion=5`,
    code: 400,
    body: failure(400, "BadRequest", "specifying resource version is not allowed when using continue"),
  },
  {
    name: "resourceVersionMatch without resourceVersion → 422 ListOptions",
    path: `${CM}?resourceVersionMatch=NotOlderThan`,
    code: 422,
    body: failure(
      422,
      "Invalid",
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      {
        group: "meta.k8s.io",
        kind: "ListOptions",
        causes: [
          {
            reason: "FieldValueForbidden",
            message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
            field: "resourceVersionMatch",
          },
        ],
      },
    ),
  },
  {
    name: "bad label selector → 400",
    path: `${CM}?labelSelector=a%3D%3D%3D`,
    code: 400,
    body: failure(400, "BadRequest", expect.stringMatching(/^unable to parse requirement: /) as unknown as string),
  },
  {
    name: "unsupported field selector → 400",
    path: `${CM}?fieldSelector=spec.foo%3Dx`,
    code: 400,
    body: failure(
      400,
      "BadRequest",
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ),
  },
  {
    name: "unknown resource → 404 NotFound",
    path: "/api/v1/namespaces/default/gizmos",
    code: 404,
    body: failure(404, "NotFound", "the server could not find the requested resource", {}),
  },
  {
    name: "unknown group version → 404 NotFound",
    path: "/apis/nope.example.com/v1/things",
    code: 404,
    body: failure(404, "NotFound", "the server could not find the requested resource", {}),
  },
  {
    name: "unknown verb: PUT on a collection → 405 MethodNotAllowed",
    path: CM,
    req: { method: "PUT", headers: json, body: "{}" },
    code: 405,
    body: failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
  },
  {
    name: "unknown verb: POST to a named object → 405",
    path: `${CM}/existing`,
    req: post(JSON.stringify(configMap("existing"))),
    code: 405,
    body: failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
  },
  {
    name: "DELETE on the all-namespaces collection of a namespaced resource (deletecollection is per namespace) → 405",
    path: "/api/v1/configmaps",
    req: { method: "DELETE" },
    code: 405,
    body: failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
  },
  {
    name: "unknown verb: OPTIONS on an object → 405",
    path: `${CM}/existing`,
    req: { method: "OPTIONS" },
    code: 405,
    body: failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}),
  },
  {
    name: "PATCH with an unsupported content type → 415",
    path: `${CM}/existing`,
    req: { method: "PATCH", headers: { "content-type": "text/plain" }, body: "x" },
    code: 415,
    body: failure(
      415,
      "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    ),
  },
  {
    name: "malformed merge patch → 400, the object is unchanged",
    path: `${CM}/existing`,
    req: { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: "{nope" },
    code: 400,
    body: failure(400, "BadRequest", expect.stringMatching(/^error decoding patch: /) as unknown as string),
  },
  {
    name: "malformed DeleteOptions body → 400, the object stays",
    path: `${CM}/existing`,
    req: { method: "DELETE", headers: json, body: "{nope" },
    code: 400,
    body: failure(
      400,
      "BadRequest",
      expect.stringMatching(
        /^the object provided is unrecognized \(must be of type DeleteOptions\): /,
      ) as unknown as string,
    ),
  },
];

describe("bad input → real Status, nothing written, still serving", () => {
  let s: EngineServer;
  beforeAll(async () => {
    s = await startEngineServer(new FakeClock());
    await s.engine.create("configmaps", "default", configMap("existing"));
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(CASES)("$name", async (c) => {
    const rvBefore = s.engine.currentResourceVersion;
    const before = (await fetchRaw(`${s.url}${CM}`)).json;
    const r = await fetchRaw(`${s.url}${c.path}`, c.req);
    expect(r.status).toBe(c.code);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.text.endsWith("}\n")).toBe(true);
    expect(r.json).toEqual(c.body);
    // Key order is kube-apiserver's (kind, apiVersion, metadata, status, message, reason, details, code).
    expect(Object.keys(r.json as object)).toEqual(Object.keys(c.body as object));
    expect(r.headers["retry-after"]).toBeUndefined();
    // Nothing half-written.
    expect(s.engine.currentResourceVersion).toBe(rvBefore);
    expect((await fetchRaw(`${s.url}${CM}`)).json).toEqual(before);
    // Still serving.
    expect((await fetchRaw(`${s.url}/healthz`)).text).toBe("ok");
  });
});
