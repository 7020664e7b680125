import type { IncomingMessage } from "node:http";
import {
  failureStatus,
  type KubeObject,
  newBadRequest,
  newRequestEntityTooLarge,
  StatusError,
} from "@informer-ts/apimachinery";
import { parseJson } from "../engine/int64-json.js";
import { parseYamlInt64 } from "../engine/int64-yaml.js";
import { type DecodeContext, decodeMessageBytes, type UnknownField } from "./protobuf/decode-message.js";
import { decodeEnvelope, PROTOBUF_MEDIA_TYPE, type ProtobufEnvelope } from "./protobuf/envelope.js";
import { kindSchema } from "./protobuf/schema.js";
import { ProtobufDecodeError } from "./protobuf/wire-reader.js";

/** kube-apiserver's `MaxRequestBodyBytes` default: 3 MiB (`--max-resource-write-bytes`). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Beyond this the socket is dropped instead of drained, so a hostile client cannot make the server read forever. */
const DRAIN_CAP_BYTES = 64 * 1024 * 1024;

/**
 * `limitedReadBody`: reads the whole request body, at most `limit` bytes. A larger body is drained and discarded
 * (so the client can read the answer) and rejected with 413 `Request entity too large: limit is <limit>`; a body
 * beyond 64 MiB makes the request's socket close. Keeps no reference to the chunks after returning.
 */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let size = 0;
    let tooLarge = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge) {
        if (size > DRAIN_CAP_BYTES) {
          req.off("data", onData);
          req.socket.destroy();
        }
        return;
      }
      if (size > limit) {
        tooLarge = true;
        chunks = null;
        return;
      }
      chunks!.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => {
      if (tooLarge) reject(newRequestEntityTooLarge(`limit is ${limit}`));
      else {
        const body = Buffer.concat(chunks!, size);
        chunks = null;
        resolve(body);
      }
    });
    req.once("error", (err) => reject(err));
    req.once("aborted", () => reject(new Error("request aborted")));
  });
}

/** Go's `summarizeData`: the first bytes of a body, hex-encoded, with `...` when cut. */
function summarize(body: Buffer, max: number): string {
  const head = body.subarray(0, max).toString("hex");
  return body.length > max ? `${head}...` : head;
}

/** What a decoded request body must be: kind and apiVersion (defaulted from the endpoint when absent). */
export interface ExpectedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /**
   * Other group versions whose body of this kind the endpoint takes too (a storage's `AcceptsGroupVersion`: pods/eviction
   * takes policy/v1beta1 Evictions, pkg/registry/core/pod/storage/eviction.go); decoded as {@link version}.
   */
  readonly alsoAccepts?: readonly string[];
}

function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/**
 * Decodes a create/update body as JSON (YAML bodies are accepted too when the Content-Type says so) and checks it is
 * the endpoint's kind (`create.go`/`update.go` decode + `transformDecodeError` + `AcceptsGroupVersion`): missing
 * `kind`/`apiVersion` are filled in from the endpoint. Throws 400 BadRequest:
 * - not an object: `the object provided is unrecognized (must be of type ConfigMap): <parse error> (<hex>)`;
 * - another kind: `Secret in version "v1" cannot be handled as a ConfigMap: …`;
 * - another group/version: `the API version in the data (apps/v1) does not match the expected API version (v1)`.
 *
 * Differences from kube-apiserver: the JSON parse error text is V8's, not Go's.
 */
export function decodeObject(body: Buffer, expected: ExpectedKind, parse: (text: string) => unknown): KubeObject {
  let value: unknown;
  try {
    value = parse(body.toString("utf8"));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw newBadRequest(
      `the object provided is unrecognized (must be of type ${expected.kind}): couldn't get version/kind; json parse error: ${why} (${summarize(body, 30)})`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw newBadRequest(
      `the object provided is unrecognized (must be of type ${expected.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (${summarize(body, 30)})`,
    );
  }
  return checkKind(value as KubeObject, expected);
}

/** `AcceptsGroupVersion` + the kind check of create/update: fills in a missing kind/apiVersion from the endpoint. */
function checkKind(obj: KubeObject, expected: ExpectedKind): KubeObject {
  const wantAV = apiVersionOf(expected.group, expected.version);
  const kind = typeof obj.kind === "string" && obj.kind !== "" ? obj.kind : expected.kind;
  const apiVersion = typeof obj.apiVersion === "string" && obj.apiVersion !== "" ? obj.apiVersion : wantAV;
  if (kind !== expected.kind) {
    const v = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    throw newBadRequest(
      `${kind} in version ${JSON.stringify(v)} cannot be handled as a ${expected.kind}: the kind ${JSON.stringify(kind)} is not served by this endpoint`,
    );
  }
  if (apiVersion !== wantAV && expected.alsoAccepts?.includes(apiVersion) !== true) {
    throw newBadRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${wantAV})`,
    );
  }
  if (obj.metadata !== undefined && (typeof obj.metadata !== "object" || obj.metadata === null)) {
    throw newBadRequest(
      `${kind} in version ${JSON.stringify(expected.version)} cannot be handled as a ${expected.kind}: json: cannot unmarshal ${typeof obj.metadata} into Go struct field ${expected.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  obj.kind = kind;
  // An accepted other version converts to the endpoint's (their fields are the same).
  obj.apiVersion = wantAV;
  return obj;
}

/** The request body media types the simulator decodes for every kind (`application/json`, `application/yaml`). */
export const SUPPORTED_INPUT_MEDIA_TYPES: readonly string[] = ["application/json", "application/yaml"];

/** The media type without parameters, lower-cased (`""` when absent). */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * The 415 of a body in a media type the endpoint does not decode. With `protobufOf` (a protobuf body of a kind without a
 * schema) the message goes on to name the kind, which kube-apiserver's does not (it serves protobuf for every built-in).
 */
function unsupportedMediaType(accepted: readonly string[], protobufOf?: ExpectedKind): StatusError {
  const what =
    protobufOf === undefined
      ? ""
      : `; the simulator decodes no protobuf ${protobufOf.kind} (${apiVersionOf(protobufOf.group, protobufOf.version)}): send it as JSON`;
  return new StatusError(
    failureStatus(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}${what}`,
    ),
  );
}

/**
 * `negotiation.NegotiateInputSerializer` for JSON and YAML bodies: a parser for a JSON or YAML `Content-Type`
 * (parameters ignored; no header = JSON), else 415 UnsupportedMediaType `the body of the request was in an unknown
 * format - accepted media types include: application/json, application/yaml`. Protobuf bodies of the kinds that
 * have a schema are decoded by {@link decodeRequestBody}, not here.
 */
export function inputParserFor(contentType: string | undefined): (text: string) => unknown {
  const t = mediaTypeOf(contentType);
  if (t === "" || t === "application/json" || t === "*/*") return (s) => parseJson(s);
  if (t === "application/yaml" || t === "application/x-yaml" || t === "text/yaml") return parseYamlInt64;
  throw unsupportedMediaType(SUPPORTED_INPUT_MEDIA_TYPES);
}

/** A decoded create/update body, with the warnings to send back (`Warning: 299 - "…"` headers). */
export interface DecodedBody {
  readonly object: KubeObject;
  readonly warnings: readonly string[];
}

/** At most this many unknown protobuf fields are named one by one in warnings; the rest are counted. */
const MAX_UNKNOWN_FIELD_WARNINGS = 5;

/**
 * Decodes a create/update body by its `Content-Type` and checks it is the endpoint's kind (see
 * {@link decodeObject}):
 * - JSON or YAML (or no `Content-Type`): {@link decodeObject};
 * - `application/vnd.kubernetes.protobuf` for a kind with a protobuf schema (the roots of schema-table.ts: the kinds
 *   kubectl's typed clients write, Eviction, TokenRequest and the reviews included): the `k8s\0` envelope and the object decoded to
 *   the JSON object a JSON client would have sent. Fields the schema does not know are skipped and each named in a
 *   warning (`unknown protobuf field …`) so that nothing is dropped silently. A malformed body is 400 naming the
 *   byte offset and field: `the object provided is unrecognized (must be of type ConfigMap): empty body at byte 4
 *   (6b387300)` for the envelope, `ConfigMap in version "v1" cannot be handled as a ConfigMap: truncated varint at
 *   byte 31 (field metadata.generation)` inside the object;
 * - protobuf for any other kind (custom resources included), CBOR and anything else: 415 UnsupportedMediaType with
 *   the media types the endpoint accepts (for protobuf, naming the kind: `…application/yaml; the simulator decodes no
 *   protobuf PodTemplate (v1): send it as JSON`).
 *
 * Differences from kube-apiserver: it skips unknown protobuf fields without a word (the simulator warns); a time's
 * nanoseconds are dropped at once (the JSON form has whole seconds).
 */
export function decodeRequestBody(body: Buffer, contentType: string | undefined, expected: ExpectedKind): DecodedBody {
  const t = mediaTypeOf(contentType);
  if (t !== PROTOBUF_MEDIA_TYPE) {
    if (t === "application/cbor" && kindSchema(expected.group, expected.version, expected.kind) !== undefined) {
      throw unsupportedMediaType([...SUPPORTED_INPUT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE]);
    }
    return { object: decodeObject(body, expected, inputParserFor(contentType)), warnings: [] };
  }
  const schema = kindSchema(expected.group, expected.version, expected.kind);
  if (schema === undefined) throw unsupportedMediaType(SUPPORTED_INPUT_MEDIA_TYPES, expected);
  let envelope: ProtobufEnvelope;
  try {
    envelope = decodeEnvelope(body);
  } catch (err) {
    throw newBadRequest(
      `the object provided is unrecognized (must be of type ${expected.kind}): ${errorText(err)} (${summarize(body, 30)})`,
    );
  }
  const typed = checkKind({ apiVersion: envelope.apiVersion, kind: envelope.kind }, expected);
  const cannotHandle = (why: string) =>
    newBadRequest(
      `${typed.kind} in version ${JSON.stringify(expected.version)} cannot be handled as a ${expected.kind}: ${why}`,
    );
  if (envelope.contentEncoding !== "") {
    throw cannotHandle(
      `unsupported contentEncoding ${JSON.stringify(envelope.contentEncoding)} in the protobuf envelope`,
    );
  }
  const ctx: DecodeContext = { unknownFields: [] };
  let fields: Record<string, unknown>;
  try {
    fields = decodeMessageBytes(envelope.raw, envelope.rawOffset, schema, ctx);
  } catch (err) {
    throw cannotHandle(errorText(err));
  }
  const object = { apiVersion: typed.apiVersion, kind: typed.kind, ...fields } as KubeObject;
  return { object, warnings: unknownFieldWarnings(ctx.unknownFields) };
}

function errorText(err: unknown): string {
  if (err instanceof ProtobufDecodeError) return err.message;
  // Anything else is a bug in the decoder: still a 400 naming the body, never a crash.
  return `protobuf decoder failed: ${err instanceof Error ? err.message : String(err)}`;
}

function unknownFieldWarnings(unknown: readonly UnknownField[]): string[] {
  const out = unknown
    .slice(0, MAX_UNKNOWN_FIELD_WARNINGS)
    .map(
      (u) =>
        `unknown protobuf field ${u.field} (wire type ${u.wireType}) of ${u.message}${u.path === "" ? "" : ` at ${u.path}`} (byte ${u.offset}) was ignored: the simulator's schema does not have it`,
    );
  if (unknown.length > MAX_UNKNOWN_FIELD_WARNINGS) {
    out.push(`${unknown.length - MAX_UNKNOWN_FIELD_WARNINGS} more unknown protobuf fields were ignored`);
  }
  return out;
}
