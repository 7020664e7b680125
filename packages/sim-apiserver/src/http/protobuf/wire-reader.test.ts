import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ProtobufDecodeError, WireReader } from "./wire-reader.js";
import { bfield, tag, varint } from "./wire-writer.test-util.js";

const reader = (bytes: number[], base = 0) => new WireReader(Uint8Array.from(bytes), base);

function failure(fn: () => unknown): ProtobufDecodeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProtobufDecodeError) return err;
    throw err;
  }
  throw new Error("expected a ProtobufDecodeError");
}

describe("WireReader", () => {
  it("reads varints of 1, 2 and 10 bytes", () => {
    expect(reader([0x01]).varint("")).toBe(1n);
    expect(reader([0xac, 0x02]).varint("")).toBe(300n);
    // -1 as int32/int64: ten bytes, sign-extended to 64 bits.
    const minusOne = reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).varint("");
    expect(BigInt.asIntN(32, minusOne)).toBe(-1n);
    expect(minusOne).toBe(2n ** 64n - 1n);
  });

  test.prop([fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })])("varint round trip", (v) => {
    const r = reader(varint(v));
    expect(r.varint("")).toBe(v);
    expect(r.done()).toBe(true);
  });

  test.prop([fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 49n }))])(
    "signedVarint (number fast path up to 7 bytes) agrees with the BigInt path",
    (v) => {
      expect(reader(varint(v)).signedVarint(32, "")).toBe(Number(BigInt.asIntN(32, v)));
      expect(reader(varint(v)).signedVarint(64, "")).toBe(Number(BigInt.asIntN(64, v)));
      const r = reader([...varint(v), 0x01]);
      r.signedVarint(64, "");
      expect(r.varint("")).toBe(1n);
    },
  );

  test.prop([fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })])(
    "exactInt64: every int64 within ±(2^53 − 1) exactly, anything beyond refused naming the value",
    (v) => {
      const r = reader([...varint(v), 0x01]);
      const safe = v >= -BigInt(Number.MAX_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER);
      if (safe) {
        expect(r.exactInt64("spec.x")).toBe(Number(v));
        expect(r.varint("")).toBe(1n);
      } else {
        const err = failure(() => r.exactInt64("spec.x"));
        expect(err.reason).toContain(`int64 value ${v} cannot be represented exactly`);
        expect([err.offset, err.path]).toEqual([0, "spec.x"]);
      }
    },
  );

  it("exactInt64 at the edges of the exact range", () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(reader(varint(max)).exactInt64("")).toBe(max);
    expect(reader(varint(-max)).exactInt64("")).toBe(-max);
    expect(reader(varint(-1)).exactInt64("")).toBe(-1);
    expect(failure(() => reader(varint(2n ** 53n)).exactInt64("g")).message).toBe(
      "int64 value 9007199254740992 cannot be represented exactly (beyond ±(2^53 − 1), JSON numbers' exact range) at byte 0 (field g)",
    );
    expect(failure(() => reader(varint(-(2n ** 63n))).exactInt64("g")).reason).toContain("-9223372036854775808");
  });

  it("a truncated varint names where it started, in absolute offsets", () => {
    const err = failure(() => reader([0x80, 0x80], 10).varint("metadata.generation"));
    expect(err.message).toBe("truncated varint at byte 10 (field metadata.generation)");
    expect([err.offset, err.path]).toEqual([10, "metadata.generation"]);
  });

  it("rejects varints beyond 64 bits", () => {
    expect(failure(() => reader([...Array(9).fill(0xff), 0x02]).varint("")).reason).toBe("varint overflows 64 bits");
    expect(failure(() => reader(Array(11).fill(0xff)).varint("")).reason).toBe("varint longer than 10 bytes");
  });

  it("reads tags and rejects field 0, groups and invalid wire types", () => {
    expect(reader(tag(17, 2)).tag("")).toEqual({ field: 17, wireType: 2, offset: 0 });
    expect(failure(() => reader([0x02]).tag("")).reason).toBe("field number 0");
    expect(failure(() => reader(tag(1, 3)).tag("")).reason).toBe("group wire type 3 (field 1)");
    expect(failure(() => reader(tag(2, 7)).tag("")).reason).toBe("invalid wire type 7 (field 2)");
  });

  it("a length past the end of the enclosing message is an error, also inside a nested message", () => {
    const r = reader([0x0a, 0x05, 0x61]);
    expect(failure(() => r.skip(r.tag("x"), "x")).message).toBe(
      "length 5 runs past the end of the enclosing message (1 bytes left) at byte 1 (field x)",
    );
    // The outer message holds 3 bytes; the inner length claims 2 of them but only 1 is inside the inner message.
    const outer = reader([0x03, 0x0a, 0x02, 0x61, 0x62]);
    const inner = outer.message("spec");
    inner.tag("spec");
    expect(failure(() => inner.string("spec.name")).offset).toBe(2);
  });

  it("reads strings (invalid UTF-8 is an error) and bytes", () => {
    expect(reader(bfield(1, Buffer.from("héllo")).slice(1)).string("")).toBe("héllo");
    expect(reader(bfield(1, Buffer.from("plain-ascii")).slice(1)).string("")).toBe("plain-ascii");
    expect(failure(() => reader([0x02, 0xc3, 0x28]).string("data.k")).message).toBe(
      "string is not valid UTF-8 at byte 0 (field data.k)",
    );
    expect([...reader([0x03, 1, 2, 3]).bytesValue("")]).toEqual([1, 2, 3]);
  });

  it("skips every wire type and reports truncated fixed-width values", () => {
    const r = reader([
      ...tag(1, 0),
      0x96,
      0x01,
      ...tag(2, 1),
      ...Array(8).fill(7),
      ...tag(3, 5),
      1,
      2,
      3,
      4,
      ...bfield(4, [9, 9]),
    ]);
    for (let i = 0; i < 4; i++) r.skip(r.tag(""), "");
    expect(r.done()).toBe(true);
    expect(failure(() => reader([1, 2, 3]).fixed32("")).reason).toBe("truncated 32-bit value");
    expect(failure(() => reader([1, 2, 3, 4, 5, 6, 7]).fixed64("")).reason).toBe("truncated 64-bit value");
    expect(reader([1, 0, 0, 0]).fixed32("").getUint32(0, true)).toBe(1);
  });
});
