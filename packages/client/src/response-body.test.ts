import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import type { Dispatcher } from "undici";
import { describe, expect, it } from "vitest";
import { decodedBody, discard, type HttpResponse, headerValue, readText } from "./response-body.js";

/** A fake undici body: a Readable with `dump`, as undici's BodyReadable has. */
function response(chunks: Buffer[], headers: Record<string, string> = {}): HttpResponse {
  const body = Readable.from(chunks) as unknown as Dispatcher.ResponseData["body"] & { dump: unknown };
  (body as { dump: (o: { limit: number }) => Promise<void> }).dump = async () => {
    (body as unknown as Readable).resume();
  };
  return { statusCode: 200, headers, body };
}

describe("response bodies", () => {
  it("reads a body as UTF-8 with a multi-byte character split across chunks", async () => {
    const bytes = Buffer.from('{"v":"é€"}');
    const res = response([bytes.subarray(0, 7), bytes.subarray(7)], { "content-length": String(bytes.length) });
    expect(await readText(res, Number.POSITIVE_INFINITY, undefined)).toBe('{"v":"é€"}');
  });

  it("gunzips a gzip body, for whole reads and streamed iteration", async () => {
    const gz = gzipSync(Buffer.from("hello\nworld\n"));
    expect(await readText(response([gz], { "content-encoding": "gzip" }), 1e9, undefined)).toBe("hello\nworld\n");
    const parts: string[] = [];
    for await (const c of decodedBody(response([gz], { "content-encoding": "gzip" }))) parts.push(String(c));
    expect(parts.join("")).toBe("hello\nworld\n");
  });

  it("keeps at most `limit` bytes", async () => {
    const res = response([Buffer.from("abcdef"), Buffer.from("ghij")]);
    expect(await readText(res, 4, undefined)).toBe("abcd");
  });

  it("rejects with the signal's reason when aborted while reading", async () => {
    const ac = new AbortController();
    const reason = new Error("stop");
    const body = new Readable({ read() {} }) as unknown as Dispatcher.ResponseData["body"];
    const p = readText({ statusCode: 200, headers: {}, body }, 1e9, ac.signal);
    (body as unknown as Readable).push(Buffer.from("partial"));
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
  });

  it("headerValue takes the first of repeated headers; discard never throws", async () => {
    expect(headerValue({ a: ["1", "2"], b: "3" }, "a")).toBe("1");
    expect(headerValue({ b: "3" }, "b")).toBe("3");
    expect(headerValue({}, "c")).toBeUndefined();
    const broken = {
      dump: () => Promise.reject(new Error("socket gone")),
    } as unknown as Dispatcher.ResponseData["body"];
    await expect(discard(broken)).resolves.toBeUndefined();
  });
});
