import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { BodyBuffer, MAX_PREALLOCATED_BODY_BYTES } from "./body-buffer.js";

/** Feeds `body` in chunks of `chunkBytes`; returns the text and every distinct buffer size, in order. */
function feed(
  body: Buffer,
  chunkBytes: number,
  announced: number | undefined,
  limit: number,
  cap: number,
): { text: string; sizes: (number | undefined)[] } {
  const b = new BodyBuffer(announced, limit, cap);
  const sizes: (number | undefined)[] = [b.capacity];
  for (let at = 0; at < body.length; at += chunkBytes) {
    b.append(body.subarray(at, at + chunkBytes));
    if (b.capacity !== sizes.at(-1)) sizes.push(b.capacity);
  }
  return { text: b.text(), sizes };
}

const bytes = (n: number) => Buffer.from("abcdefghij".repeat(Math.ceil(n / 10)).slice(0, n));

describe("BodyBuffer (readText's body accumulation)", () => {
  it("defaults the up-front cap to 256 MiB", () => {
    expect(MAX_PREALLOCATED_BODY_BYTES).toBe(256 * 1024 * 1024);
  });

  it("a body past the up-front cap grows straight to the announced size, not by doubling", () => {
    const body = bytes(3000);
    const r = feed(body, 100, 3000, Number.POSITIVE_INFINITY, 1024);
    // Doubling would go 1024 → 2048 → 4096: two copies, and 2048 + 4096 bytes alive at once for a 3000-byte body.
    expect(r.sizes).toEqual([1024, 3000]);
    expect(r.text).toBe(body.toString());
  });

  it("doubles only once the body runs past the announced size (a lying server)", () => {
    const body = bytes(3500);
    const r = feed(body, 100, 3000, Number.POSITIVE_INFINITY, 1024);
    expect(r.sizes).toEqual([1024, 3000, 6000]);
    expect(r.text).toBe(body.toString());
  });

  it("never grows past the limit, and keeps only limit bytes", () => {
    const body = bytes(3000);
    const r = feed(body, 100, 3000, 2000, 1024);
    expect(r.sizes).toEqual([1024, 2000]);
    expect(r.text).toBe(body.subarray(0, 2000).toString());
  });

  it("a body within the cap uses one buffer of the announced size; without one the chunks are decoded as they come", () => {
    const body = bytes(700);
    expect(feed(body, 64, 700, Number.POSITIVE_INFINITY, 1024)).toEqual({ text: body.toString(), sizes: [700] });
    expect(feed(body, 64, undefined, Number.POSITIVE_INFINITY, 1024)).toEqual({
      text: body.toString(),
      sizes: [undefined],
    });
  });

  it("decodes UTF-8 characters split across chunks, from strings and byte chunks alike", () => {
    const text = "é€😀中".repeat(50);
    const raw = Buffer.from(text);
    expect(feed(raw, 3, raw.length, Number.POSITIVE_INFINITY, 16).text).toBe(text);
    for (const chunk of [1, 2, 3, 5]) expect(feed(raw, chunk, undefined, Number.POSITIVE_INFINITY, 16).text).toBe(text);
    const b = new BodyBuffer(undefined, Number.POSITIVE_INFINITY, 16);
    b.append("é€");
    b.append(new Uint8Array(Buffer.from("😀")));
    expect(b.text()).toBe("é€😀");
  });

  test.prop(
    [
      fc.integer({ min: 0, max: 4000 }), // body bytes
      fc.integer({ min: 0, max: 4000 }), // announced
      fc.integer({ min: 1, max: 5000 }), // limit
      fc.integer({ min: 1, max: 2000 }), // cap
      fc.integer({ min: 1, max: 600 }), // chunk bytes
    ],
    { numRuns: 300 },
  )(
    "keeps the first limit bytes; a body no longer than announced needs at most one growth",
    (n, announced, limit, cap, chunk) => {
      const body = bytes(n);
      const r = feed(body, chunk, announced, limit, cap);
      expect(r.text).toBe(body.subarray(0, Math.min(n, limit)).toString());
      expect(r.sizes[0]).toBe(Math.min(announced, limit, cap));
      for (let i = 1; i < r.sizes.length; i++) {
        const prev = r.sizes[i - 1]!;
        const size = r.sizes[i]!;
        expect(size).toBeLessThanOrEqual(limit);
        // Growth goes to the announced size, or doubles past it (or just fits a chunk larger than that).
        expect(size).toBeLessThanOrEqual(Math.max(announced, 2 * prev, prev + chunk));
      }
      if (n <= announced) expect(r.sizes.length).toBeLessThanOrEqual(2);
    },
  );
});
