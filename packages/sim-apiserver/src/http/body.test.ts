// Content-type dispatch of create/update bodies: JSON/YAML, protobuf (k8s envelope) for kinds with a schema, 415 for
// the rest, 400 naming offset and field for malformed protobuf.
import { fc, test } from "@fast-check/vitest";
import { StatusError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { decodeRequestBody, type ExpectedKind } from "./body.js";
import { PROTOBUF_MEDIA_TYPE } from "./protobuf/envelope.js";
import { encodeMessage, envelope, mapEntry, mfield, sfield, vfield } from "./protobuf/wire-writer.test-util.js";

const CM: ExpectedKind = { group: "", version: "v1", kind: "ConfigMap" };
const POD_TEMPLATE: ExpectedKind = { group: "", version: "v1", kind: "PodTemplate" };
const WIDGET: ExpectedKind = { group: "example.com", version: "v1", kind: "Widget" };

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) {
      const s = err.status;
      return { code: s.code ?? 0, reason: s.reason ?? "", message: s.message ?? "" };
    }
    throw err;
  }
  throw new Error("expected a StatusError");
}

const cmBytes = envelope("v1", "ConfigMap", [...mfield(1, sfield(1, "x")), ...mapEntry(2, "a", "b")]);

describe("decodeRequestBody", () => {
  it("JSON and YAML as before; no Content-Type is JSON", () => {
    const json = Buffer.from('{"metadata":{"name":"x"},"data":{"a":"b"}}');
    const want = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } };
    expect(decodeRequestBody(json, "application/json", CM)).toEqual({ object: want, warnings: [] });
    expect(decodeRequestBody(json, undefined, CM).object).toEqual(want);
    const yaml = Buffer.from("metadata:\n  name: x\ndata:\n  a: b\n");
    expect(decodeRequestBody(yaml, "application/yaml", CM).object).toEqual(want);
  });

  it("protobuf of a kind with a schema decodes to the object a JSON client sends (parameters ignored)", () => {
    const r = decodeRequestBody(cmBytes, `${PROTOBUF_MEDIA_TYPE}; charset=binary`, CM);
    expect(r).toEqual({
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } },
      warnings: [],
    });
    // typeMeta left empty: kind and apiVersion come from the endpoint, as upstream's copyKindDefaults.
    const bare = envelope("", "", [...mfield(1, sfield(1, "y"))]);
    expect(decodeRequestBody(bare, PROTOBUF_MEDIA_TYPE, CM).object).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "y" },
    });
  });

  it("unknown fields become warnings, at most five named", () => {
    const unknowns = Array.from({ length: 7 }, (_, i) => vfield(40 + i, 1)).flat();
    const r = decodeRequestBody(
      envelope("v1", "ConfigMap", [...mfield(1, sfield(1, "x")), ...unknowns]),
      PROTOBUF_MEDIA_TYPE,
      CM,
    );
    expect(r.object.metadata).toEqual({ name: "x" });
    expect(r.warnings).toHaveLength(6);
    expect(r.warnings[0]).toBe(
      "unknown protobuf field 40 (wire type 0) of ConfigMap (byte 28) was ignored: the simulator's schema does not have it",
    );
    expect(r.warnings[5]).toBe("2 more unknown protobuf fields were ignored");
  });

  it("415 for protobuf of a kind without a schema (built-in or custom) and for CBOR", () => {
    const noSchema = {
      code: 415,
      reason: "UnsupportedMediaType",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
    };
    // Protobuf: the message goes on to name the kind the simulator has no schema for.
    expect(statusOf(() => decodeRequestBody(cmBytes, PROTOBUF_MEDIA_TYPE, POD_TEMPLATE))).toEqual({
      ...noSchema,
      message: `${noSchema.message}; the simulator decodes no protobuf PodTemplate (v1): send it as JSON`,
    });
    expect(statusOf(() => decodeRequestBody(cmBytes, PROTOBUF_MEDIA_TYPE, WIDGET))).toEqual({
      ...noSchema,
      message: `${noSchema.message}; the simulator decodes no protobuf ${WIDGET.kind} (${WIDGET.group}/${WIDGET.version}): send it as JSON`,
    });
    expect(statusOf(() => decodeRequestBody(cmBytes, "application/cbor", WIDGET))).toEqual(noSchema);
    expect(statusOf(() => decodeRequestBody(cmBytes, "application/cbor", CM))).toEqual({
      ...noSchema,
      message: `${noSchema.message}, application/vnd.kubernetes.protobuf`,
    });
  });

  it("malformed protobuf is 400 naming what was wrong; another kind or version in the envelope is 400", () => {
    expect(statusOf(() => decodeRequestBody(Buffer.from('{"a":1}'), PROTOBUF_MEDIA_TYPE, CM))).toEqual({
      code: 400,
      reason: "BadRequest",
      message:
        "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] at byte 0 (7b2261223a317d)",
    });
    expect(statusOf(() => decodeRequestBody(Buffer.from("k8s\0"), PROTOBUF_MEDIA_TYPE, CM)).message).toBe(
      "the object provided is unrecognized (must be of type ConfigMap): empty body at byte 4 (6b387300)",
    );
    expect(
      statusOf(() => decodeRequestBody(Buffer.from([...cmBytes.subarray(0, 25)]), PROTOBUF_MEDIA_TYPE, CM)).message,
    ).toBe(
      "the object provided is unrecognized (must be of type ConfigMap): length 13 runs past the end of the enclosing message (2 bytes left) at byte 22 (field Unknown.raw) (6b3873000a0f0a0276311209436f6e6669674d6170120d0a03)",
    );
    const badLabels = envelope("v1", "ConfigMap", [...mfield(1, mfield(11, sfield(1, "k"), vfield(2, 5)))]);
    expect(statusOf(() => decodeRequestBody(badLabels, PROTOBUF_MEDIA_TYPE, CM))).toEqual({
      code: 400,
      reason: "BadRequest",
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: map value has wire type 0, expected 2 at byte 30 (field metadata.labels)',
    });
    expect(statusOf(() => decodeRequestBody(envelope("v1", "Secret", []), PROTOBUF_MEDIA_TYPE, CM)).message).toBe(
      'Secret in version "v1" cannot be handled as a ConfigMap: the kind "Secret" is not served by this endpoint',
    );
    expect(
      statusOf(() => decodeRequestBody(envelope("apps/v1", "ConfigMap", []), PROTOBUF_MEDIA_TYPE, CM)).message,
    ).toBe("the API version in the data (apps/v1) does not match the expected API version (v1)");
    const gzip = envelope("v1", "ConfigMap", [], sfield(3, "gzip"));
    expect(statusOf(() => decodeRequestBody(gzip, PROTOBUF_MEDIA_TYPE, CM)).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: unsupported contentEncoding "gzip" in the protobuf envelope',
    );
  });

  // A valid Deployment body to mutate: every corruption is either decoded or a 400, never another error.
  const deployment = envelope(
    "apps/v1",
    "Deployment",
    encodeMessage("Deployment", {
      metadata: { name: "d", labels: { a: "b" } },
      spec: {
        replicas: 2,
        strategy: { rollingUpdate: { maxSurge: "25%" } },
        template: { spec: { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1" } } }] } },
      },
    }),
  );
  const DEPLOY: ExpectedKind = { group: "apps", version: "v1", kind: "Deployment" };
  test.prop([
    fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 4 }),
    fc.nat(),
  ])("corrupted or truncated protobuf bodies decode or answer 400, nothing else", (edits, cut) => {
    const body = Buffer.from(deployment);
    for (const e of edits) body[4 + (e.at % (body.length - 4))] = e.byte;
    const truncated = body.subarray(0, 4 + (cut % (body.length - 3)));
    for (const b of [body, truncated]) {
      try {
        decodeRequestBody(b, PROTOBUF_MEDIA_TYPE, DEPLOY);
      } catch (err) {
        expect(err).toBeInstanceOf(StatusError);
        expect((err as StatusError).status.code).toBe(400);
      }
    }
  });
});
