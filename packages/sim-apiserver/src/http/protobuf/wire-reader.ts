// The protobuf wire format, read side: tags, varints, length-delimited and fixed-width values, skipping unknown
// fields. Every failure is a ProtobufDecodeError naming the byte offset and what was being read.
import { isUtf8 } from "node:buffer";

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** Wire types of the protobuf encoding (groups, 3 and 4, are deprecated and rejected). */
export const WireType = {
  Varint: 0,
  Fixed64: 1,
  LengthDelimited: 2,
  Fixed32: 5,
} as const;

/**
 * A malformed protobuf body: `offset` is the byte offset (in the whole request body) where reading failed, `path`
 * the JSON path of the field being decoded (`metadata.labels`, `spec.template.spec.containers[0]`), empty at the top.
 */
export class ProtobufDecodeError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly path: string,
  ) {
    super(`${reason} at byte ${offset}${path === "" ? "" : ` (field ${path})`}`);
    this.name = "ProtobufDecodeError";
  }
}

/** One field key: field number and wire type, with the offset of the key's first byte. */
export interface FieldTag {
  readonly field: number;
  readonly wireType: number;
  readonly offset: number;
}

/**
 * A cursor over `bytes[start, end)`. Offsets in errors are absolute (`base` + position in `bytes`) so a nested
 * message's errors still point into the original body. `path` is only used in error messages.
 */
export class WireReader {
  private pos: number;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly base = 0,
    start = 0,
    private readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  /** Absolute offset of the next byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  fail(reason: string, path: string, at = this.offset): never {
    throw new ProtobufDecodeError(reason, at, path);
  }

  /** A varint as a 64-bit unsigned bigint (at most 10 bytes). */
  varint(path: string): bigint {
    const start = this.offset;
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated varint", path, start);
      const b = this.bytes[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (i === 9 && b > 1) this.fail("varint overflows 64 bits", path, start);
        return result;
      }
      shift += 7n;
    }
    return this.fail("varint longer than 10 bytes", path, start);
  }

  /**
   * A varint of at most 7 bytes (< 2^49) as a number, without BigInt; undefined (cursor unmoved) when it is longer,
   * so the caller falls back to {@link varint}. Lengths, keys and nearly every scalar take this path.
   */
  private shortVarint(): number | undefined {
    let result = 0;
    let scale = 1;
    for (let i = this.pos; i < this.end && i < this.pos + 7; i++) {
      const b = this.bytes[i]!;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        this.pos = i + 1;
        return result;
      }
      scale *= 128;
    }
    return undefined;
  }

  /** A varint as a 64-bit two's complement integer truncated to `bits` (32 or 64), as a JavaScript number. */
  signedVarint(bits: 32 | 64, path: string): number {
    const fast = this.shortVarint();
    if (fast !== undefined) return bits === 32 ? fast | 0 : fast;
    return Number(BigInt.asIntN(bits, this.varint(path)));
  }

  /**
   * A varint as a signed 64-bit integer (`int64`) that must be exactly representable as a JavaScript number
   * (|v| ≤ 2^53 − 1); a larger magnitude fails naming the value instead of being rounded.
   */
  exactInt64(path: string): number {
    const fast = this.shortVarint();
    if (fast !== undefined) return fast;
    const start = this.offset;
    const v = BigInt.asIntN(64, this.varint(path));
    if (v > MAX_EXACT || v < -MAX_EXACT) {
      this.fail(
        `int64 value ${v} cannot be represented exactly (beyond ±(2^53 − 1), JSON numbers' exact range)`,
        path,
        start,
      );
    }
    return Number(v);
  }

  /** A varint that must fit a non-negative safe integer (lengths, field keys). */
  smallVarint(path: string, what: string): number {
    const fast = this.shortVarint();
    if (fast !== undefined) return fast;
    const start = this.offset;
    const v = this.varint(path);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${v} is too large`, path, start);
    return Number(v);
  }

  tag(path: string): FieldTag {
    const offset = this.offset;
    const key = this.smallVarint(path, "field key");
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field === 0) this.fail("field number 0", path, offset);
    if (wireType === 3 || wireType === 4) this.fail(`group wire type ${wireType} (field ${field})`, path, offset);
    if (wireType === 6 || wireType === 7) this.fail(`invalid wire type ${wireType} (field ${field})`, path, offset);
    return { field, wireType, offset };
  }

  /** The bounds of a length-delimited value, which the cursor then skips. */
  lengthDelimited(path: string): { readonly start: number; readonly end: number } {
    const at = this.offset;
    const len = this.smallVarint(path, "length");
    if (len > this.end - this.pos) {
      this.fail(
        `length ${len} runs past the end of the enclosing message (${this.end - this.pos} bytes left)`,
        path,
        at,
      );
    }
    const start = this.pos;
    this.pos += len;
    return { start, end: this.pos };
  }

  bytesValue(path: string): Uint8Array {
    const { start, end } = this.lengthDelimited(path);
    return this.bytes.subarray(start, end);
  }

  /** A UTF-8 string; invalid UTF-8 is an error (Go's proto decoder accepts it, its JSON encoder would mangle it). */
  string(path: string): string {
    const at = this.offset;
    const b = this.bytesValue(path);
    if (!isUtf8(b)) this.fail("string is not valid UTF-8", path, at);
    return Buffer.from(b.buffer, b.byteOffset, b.length).toString("utf8");
  }

  /** A reader over a nested message (a length-delimited value), sharing the absolute offsets. */
  message(path: string): WireReader {
    const { start, end } = this.lengthDelimited(path);
    return new WireReader(this.bytes, this.base, start, end);
  }

  fixed32(path: string): DataView {
    return this.fixed(4, path);
  }

  fixed64(path: string): DataView {
    return this.fixed(8, path);
  }

  private fixed(n: number, path: string): DataView {
    if (this.end - this.pos < n) this.fail(`truncated ${n * 8}-bit value`, path);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, n);
    this.pos += n;
    return view;
  }

  /** Skips the value of a field whose key was just read. */
  skip(tag: FieldTag, path: string): void {
    switch (tag.wireType) {
      case WireType.Varint:
        this.varint(path);
        return;
      case WireType.Fixed64:
        this.fixed(8, path);
        return;
      case WireType.LengthDelimited:
        this.lengthDelimited(path);
        return;
      case WireType.Fixed32:
        this.fixed(4, path);
        return;
      default:
        this.fail(`cannot skip wire type ${tag.wireType}`, path, tag.offset);
    }
  }
}
