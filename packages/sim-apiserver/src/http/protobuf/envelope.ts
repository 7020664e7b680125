// The envelope around every `application/vnd.kubernetes.protobuf` body (runtime/serializer/protobuf): the 4-byte
// magic `k8s\0`, then a `runtime.Unknown` message — typeMeta (1: apiVersion = 1, kind = 2), raw (2: the object's
// own message), contentEncoding (3), contentType (4).
import { ProtobufDecodeError, WireReader, WireType } from "./wire-reader.js";

/** `k8s\x00`: the prefix of Kubernetes protobuf bodies. */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The media type of Kubernetes protobuf bodies. */
export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

/** A decoded envelope: the object's type and where its message lies in the body. */
export interface ProtobufEnvelope {
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's message (a view into the body). */
  readonly raw: Uint8Array;
  /** Offset of `raw` in the body, for error offsets. */
  readonly rawOffset: number;
  readonly contentEncoding: string;
  readonly contentType: string;
}

/**
 * Reads the magic and the `runtime.Unknown` envelope. Throws ProtobufDecodeError: a body without the magic
 * (`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`, upstream's words), an
 * empty one, a malformed envelope. Unknown envelope fields are skipped (upstream ignores them too).
 */
export function decodeEnvelope(body: Uint8Array): ProtobufEnvelope {
  const magic = PROTOBUF_MAGIC;
  if (body.length === 0) throw new ProtobufDecodeError("empty data", 0, "");
  if (body.length < magic.length || magic.some((b, i) => body[i] !== b)) {
    throw new ProtobufDecodeError(
      `provided data does not appear to be a protobuf message, expected prefix [${magic.join(" ")}]`,
      0,
      "",
    );
  }
  if (body.length === magic.length) throw new ProtobufDecodeError("empty body", magic.length, "");
  const r = new WireReader(body, 0, magic.length);
  let apiVersion = "";
  let kind = "";
  let raw: Uint8Array = new Uint8Array(0);
  let rawOffset = body.length;
  let contentEncoding = "";
  let contentType = "";
  while (!r.done()) {
    const tag = r.tag("Unknown");
    if (tag.field >= 1 && tag.field <= 4 && tag.wireType !== WireType.LengthDelimited) {
      r.fail(`runtime.Unknown field ${tag.field} has wire type ${tag.wireType}, expected 2`, "Unknown", tag.offset);
    }
    switch (tag.field) {
      case 1: {
        const tm = r.message("Unknown.typeMeta");
        while (!tm.done()) {
          const t = tm.tag("Unknown.typeMeta");
          if ((t.field === 1 || t.field === 2) && t.wireType === WireType.LengthDelimited) {
            const s = tm.string(t.field === 1 ? "typeMeta.apiVersion" : "typeMeta.kind");
            if (t.field === 1) apiVersion = s;
            else kind = s;
          } else tm.skip(t, "Unknown.typeMeta");
        }
        break;
      }
      case 2: {
        const { start, end } = r.lengthDelimited("Unknown.raw");
        raw = body.subarray(start, end);
        rawOffset = start;
        break;
      }
      case 3:
        contentEncoding = r.string("Unknown.contentEncoding");
        break;
      case 4:
        contentType = r.string("Unknown.contentType");
        break;
      default:
        r.skip(tag, "Unknown");
    }
  }
  return { apiVersion, kind, raw, rawOffset, contentEncoding, contentType };
}
