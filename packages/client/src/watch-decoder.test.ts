import { fc, test } from "@fast-check/vitest";
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  decodeWatchBatches,
  decodeWatchStream,
  WATCH_DECODE_EXCERPT_CHARS,
  WatchDecodeError,
} from "./watch-decoder.js";

async function* chunksOf(parts: readonly (Uint8Array | string)[]): AsyncGenerator<Uint8Array | string> {
  for (const p of parts) yield p;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Runs the decoder to the end; returns the events and the error it threw (if any). */
async function decodeAll(
  parts: readonly (Uint8Array | string)[],
  maxLineBytes?: number,
): Promise<{ events: WatchEvent[]; error: unknown }> {
  const events: WatchEvent[] = [];
  try {
    for await (const e of decodeWatchStream(chunksOf(parts), maxLineBytes === undefined ? {} : { maxLineBytes })) {
      events.push(e);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** Cuts `bytes` at the given (sorted, deduplicated) positions. */
function cut(bytes: Buffer, positions: readonly number[]): Buffer[] {
  const points = [...new Set(positions.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

const cm = (name: string, rv: string, data: Record<string, string> = {}): KubeObject => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "default", resourceVersion: rv },
  data,
});

const ndjson = (events: readonly WatchEvent[]) => Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(""));

// Strings mixing ASCII, 2-, 3- and 4-byte UTF-8 and characters JSON must escape.
const text = fc.string({
  unit: fc.constantFrom("a", "z", "0", " ", '"', "\\", "\n", "\t", "é", "ß", "€", "中", "😀", "𝄞", "\u2028", "\u0000"),
  maxLength: 30,
});

const objectArb: fc.Arbitrary<KubeObject> = fc.record({
  kind: fc.constant("ConfigMap"),
  apiVersion: fc.constant("v1"),
  metadata: fc.record({ name: text, resourceVersion: fc.nat().map(String) }),
  data: fc.dictionary(text, text, { maxKeys: 4 }),
});

const eventArb: fc.Arbitrary<WatchEvent> = fc.oneof(
  fc.record({
    type: fc.constantFrom("ADDED", "MODIFIED", "DELETED", "BOOKMARK"),
    object: objectArb,
  }) as fc.Arbitrary<WatchEvent>,
  fc.record({
    type: fc.constant("ERROR"),
    object: fc.record({
      kind: fc.constant("Status"),
      apiVersion: fc.constant("v1"),
      metadata: fc.constant({}),
      status: fc.constant("Failure"),
      message: text,
      reason: fc.constant("Expired"),
      code: fc.constant(410),
    }),
  }) as fc.Arbitrary<WatchEvent>,
);

describe("decodeWatchStream", () => {
  it("decodes one event per line, in order, including ERROR events carrying the Status", async () => {
    const events: WatchEvent[] = [
      { type: "ADDED", object: cm("a", "10") },
      { type: "MODIFIED", object: cm("a", "11", { k: "v" }) },
      { type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "12" } } },
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "too old resource version: 2 (455)",
          reason: "Expired",
          code: 410,
        },
      },
    ];
    const { events: got, error } = await decodeAll([ndjson(events)]);
    expect(error).toBeUndefined();
    expect(got).toEqual(events);
  });

  it("ignores blank lines and CRLF line ends", async () => {
    const a = JSON.stringify({ type: "ADDED", object: cm("a", "1") });
    const b = JSON.stringify({ type: "DELETED", object: cm("a", "2") });
    const { events, error } = await decodeAll([`\n  \n${a}\r\n\r\n${b}\n\n`]);
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
  });

  it("fills in kind/apiVersion of an ERROR Status from an old server", async () => {
    const { events } = await decodeAll([`{"type":"ERROR","object":{"code":410,"reason":"Gone","status":"Failure"}}\n`]);
    expect(events).toEqual([
      {
        type: "ERROR",
        object: { kind: "Status", apiVersion: "v1", metadata: {}, code: 410, reason: "Gone", status: "Failure" },
      },
    ]);
  });

  it("decodes a complete last line without a trailing newline", async () => {
    const line = JSON.stringify({ type: "ADDED", object: cm("last", "5") });
    const { events, error } = await decodeAll([line.slice(0, 7), line.slice(7)]);
    expect(error).toBeUndefined();
    expect(events).toEqual([{ type: "ADDED", object: cm("last", "5") }]);
  });

  it("a truncated last line is a 'truncated' WatchDecodeError, after the complete events", async () => {
    const first = `${JSON.stringify({ type: "ADDED", object: cm("a", "1") })}\n`;
    const partial = JSON.stringify({ type: "ADDED", object: cm("b", "2") }).slice(0, 25);
    const { events, error } = await decodeAll([first, partial]);
    expect(events).toHaveLength(1);
    expect(error).toBeInstanceOf(WatchDecodeError);
    const e = error as WatchDecodeError;
    expect(e.kind).toBe("truncated");
    expect(e.offset).toBe(Buffer.byteLength(first));
    expect(e.excerpt).toBe(partial);
    expect(e.lineBytes).toBe(Buffer.byteLength(partial));
  });

  it("a malformed line is a 'malformed-json' WatchDecodeError with the byte offset and a 200-char excerpt", async () => {
    const first = `${JSON.stringify({ type: "ADDED", object: cm("ünïcödé", "1") })}\n`;
    const bad = `{"type":"ADDED","object":${"x".repeat(500)}`;
    const { events, error } = await decodeAll([
      first,
      `${bad}\n`,
      `${JSON.stringify({ type: "ADDED", object: cm("c", "3") })}\n`,
    ]);
    expect(events).toHaveLength(1);
    const e = error as WatchDecodeError;
    expect(e).toBeInstanceOf(WatchDecodeError);
    expect(e.kind).toBe("malformed-json");
    expect(e.offset).toBe(Buffer.byteLength(first));
    expect(e.excerpt).toBe(bad.slice(0, WATCH_DECODE_EXCERPT_CHARS));
    expect(e.message).toContain(`byte offset ${Buffer.byteLength(first)}`);
    // The excerpt is data, not part of the message.
    expect(e.message).not.toContain("xxxxxxxx");
  });

  it.each([
    ["an array", "[1,2]"],
    ["a number", "42"],
    ["an unknown type", '{"type":"CHANGED","object":{}}'],
    ["a missing object", '{"type":"ADDED"}'],
    ["a null object", '{"type":"ADDED","object":null}'],
    ["an array object", '{"type":"ADDED","object":[]}'],
  ])("%s is an 'invalid-event' WatchDecodeError", async (_what, line) => {
    const { events, error } = await decodeAll([`${line}\n`]);
    expect(events).toEqual([]);
    expect((error as WatchDecodeError).kind).toBe("invalid-event");
  });

  it("a line longer than maxLineBytes fails with 'line-too-long' instead of growing", async () => {
    const { error } = await decodeAll(["{", '"type":', '"ADDED"', ',"object":{"a":"', "y".repeat(100)], 64);
    const e = error as WatchDecodeError;
    expect(e.kind).toBe("line-too-long");
    expect(e.offset).toBe(0);
    expect(e.excerpt.startsWith('{"type":"ADDED"')).toBe(true);
  });

  it("a line longer than maxLineBytes fails even when it arrives whole in one chunk (complete JSON or not)", async () => {
    const ok = `${JSON.stringify({ type: "ADDED", object: cm("a", "1") })}\n`;
    const long = `${JSON.stringify({ type: "ADDED", object: cm("b", "2", { big: "y".repeat(200) }) })}\n`;
    // A line of exactly maxLineBytes (without its newline) is accepted.
    const max = Buffer.byteLength(ok) - 1;
    const { events, error } = await decodeAll([ok + long + ok], max);
    expect(events).toHaveLength(1);
    const e = error as WatchDecodeError;
    expect(e).toBeInstanceOf(WatchDecodeError);
    expect(e.kind).toBe("line-too-long");
    expect(e.offset).toBe(Buffer.byteLength(ok));
    // The excerpt comes from the first maxLineBytes + 1 bytes, as much as a split delivery has read.
    expect(max + 1).toBeLessThan(200);
    expect(e.excerpt).toBe(long.slice(0, max + 1));
    expect(e.lineBytes).toBe(Buffer.byteLength(long) - 1);
  });

  it("re-throws a transport error of the source unchanged, after the events before it", async () => {
    const boom = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    async function* source() {
      yield `${JSON.stringify({ type: "ADDED", object: cm("a", "1") })}\n{"type":"ADD`;
      throw boom;
    }
    const events: WatchEvent[] = [];
    let caught: unknown;
    try {
      for await (const e of decodeWatchStream(source())) events.push(e);
    } catch (err) {
      caught = err;
    }
    expect(events).toHaveLength(1);
    expect(caught).toBe(boom);
  });

  it("pulls chunks lazily: one event needs only the chunks that hold it", async () => {
    let pulled = 0;
    const lines = [0, 1, 2, 3].map((i) => `${JSON.stringify({ type: "ADDED", object: cm(`o${i}`, `${i}`) })}\n`);
    async function* source() {
      for (const l of lines) {
        pulled++;
        yield l;
      }
    }
    const it = decodeWatchStream(source())[Symbol.asyncIterator]();
    await it.next();
    expect(pulled).toBe(1);
    await it.next();
    expect(pulled).toBe(2);
    await it.return?.();
  });

  test.prop([fc.array(eventArb, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 })], { numRuns: 300 })(
    "any chunking of a valid NDJSON stream decodes to the same events",
    async (events, positions) => {
      const bytes = ndjson(events);
      const whole = await decodeAll([bytes]);
      const chunked = await decodeAll(cut(bytes, positions));
      expect(whole.error).toBeUndefined();
      expect(chunked.error).toBeUndefined();
      expect(chunked.events).toEqual(events);
      expect(whole.events).toEqual(events);
    },
  );

  test.prop(
    [
      fc.array(eventArb, { maxLength: 4 }),
      eventArb,
      fc.array(eventArb, { maxLength: 2 }),
      fc.nat({ max: 300 }),
      fc.nat({ max: 1200 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.integer({ min: 1, max: 7 }),
    ],
    { numRuns: 200 },
  )(
    "a line over maxLineBytes fails the same whether it arrives whole, cut anywhere, or a few bytes at a time",
    async (before, longEvent, after, slack, over, positions, step) => {
      const head = ndjson(before);
      const longest = Math.max(0, ...before.map((e) => Buffer.byteLength(JSON.stringify(e))));
      const maxLineBytes = longest + slack;
      // Pad the long event so its line is over the limit (multi-byte characters of eventArb are kept in it).
      const base = JSON.stringify(longEvent);
      const pad = Math.max(0, maxLineBytes + 1 + over - Buffer.byteLength(base));
      const long = { ...longEvent, object: { ...longEvent.object, pad: "y".repeat(pad) } } as WatchEvent;
      const bytes = Buffer.concat([head, ndjson([long]), ndjson(after)]);
      const bytewise: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += step) bytewise.push(new Uint8Array(bytes.subarray(i, i + step)));
      const whole = await decodeAll([bytes], maxLineBytes);
      for (const r of [
        whole,
        await decodeAll(cut(bytes, positions), maxLineBytes),
        await decodeAll(bytewise, maxLineBytes),
      ]) {
        expect(r.events).toEqual(before);
        const e = r.error as WatchDecodeError;
        expect(e).toBeInstanceOf(WatchDecodeError);
        expect(e.kind).toBe("line-too-long");
        expect(e.offset).toBe(head.length);
        expect(e.excerpt).toBe((whole.error as WatchDecodeError).excerpt);
        expect(e.lineBytes).toBeGreaterThan(maxLineBytes);
      }
    },
  );

  test.prop([fc.array(eventArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 7 })], { numRuns: 200 })(
    "byte-at-a-time delivery splits every multi-byte character and still decodes",
    async (events, step) => {
      const bytes = ndjson(events);
      const parts: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += step) parts.push(new Uint8Array(bytes.subarray(i, i + step)));
      const { events: got, error } = await decodeAll(parts);
      expect(error).toBeUndefined();
      expect(got).toEqual(events);
    },
  );

  const corruption = fc.oneof(
    fc.record({ op: fc.constant("flip" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 20 }) }),
    fc.record({
      op: fc.constant("insert" as const),
      at: fc.nat(),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
    }),
    fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  );

  test.prop(
    [
      fc.array(eventArb, { minLength: 1, maxLength: 6 }),
      fc.array(corruption, { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 8 }),
    ],
    { numRuns: 500 },
  )(
    "random corruption yields events and/or a WatchDecodeError with an excerpt — never another exception",
    async (events, edits, positions) => {
      let bytes = ndjson(events);
      for (const e of edits) {
        const at = e.at % (bytes.length + 1);
        if (e.op === "flip") {
          if (bytes.length > 0) {
            bytes = Buffer.from(bytes);
            bytes[at % bytes.length] = e.byte;
          }
        } else if (e.op === "delete") bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + e.len)]);
        else if (e.op === "insert")
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(e.bytes), bytes.subarray(at)]);
        else bytes = bytes.subarray(0, at);
      }
      const { events: got, error } = await decodeAll(cut(bytes, positions), 4096);
      if (error !== undefined) {
        expect(error).toBeInstanceOf(WatchDecodeError);
        const e = error as WatchDecodeError;
        expect(e.offset).toBeGreaterThanOrEqual(0);
        expect(e.offset).toBeLessThanOrEqual(bytes.length);
        expect(e.excerpt.length).toBeLessThanOrEqual(WATCH_DECODE_EXCERPT_CHARS);
        expect(["malformed-json", "invalid-event", "truncated", "line-too-long"]).toContain(e.kind);
      }
      for (const ev of got) {
        expect(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]).toContain(ev.type);
        expect(typeof ev.object).toBe("object");
      }
      // The same corrupted bytes in one chunk give the same outcome.
      const whole = await decodeAll([bytes], 4096);
      expect(whole.events).toEqual(got);
      expect((whole.error as WatchDecodeError | undefined)?.offset).toBe(
        (error as WatchDecodeError | undefined)?.offset,
      );
    },
  );
});

describe("decodeWatchStream memory", () => {
  it("does not keep decoded lines: a long stream of events decodes with bounded pending state", async () => {
    // 20 000 events streamed from a generator that builds each chunk on demand; the decoder only ever holds one.
    let produced = 0;
    async function* source() {
      for (let i = 0; i < 20_000; i++) {
        produced++;
        yield `${JSON.stringify({ type: "MODIFIED", object: cm("x", String(i), { payload: "p".repeat(200) }) })}\n`;
      }
    }
    let n = 0;
    let lastRV = "";
    for await (const e of decodeWatchStream(source())) {
      n++;
      lastRV = (e.object as KubeObject).metadata?.resourceVersion ?? "";
      // Pull-based: never more than one chunk ahead of the consumer.
      expect(produced - n).toBeLessThanOrEqual(1);
    }
    expect(n).toBe(20_000);
    expect(lastRV).toBe("19999");
    expect(await collect(decodeWatchStream(chunksOf([])))).toEqual([]);
  });
});

describe("decodeWatchBatches", () => {
  it("yields one batch per chunk with the events whose lines end in it, never an empty batch", async () => {
    const events: WatchEvent[] = [1, 2, 3, 4].map((i) => ({ type: "MODIFIED", object: cm(`c${i}`, String(i)) }));
    const bytes = ndjson(events);
    const firstEnd = bytes.indexOf(0x0a) + 1;
    // Chunk 1: event 1 and half of event 2; chunk 2: the middle of event 2 (no newline); chunk 3: the rest.
    const parts = [
      bytes.subarray(0, firstEnd + 5),
      bytes.subarray(firstEnd + 5, firstEnd + 10),
      bytes.subarray(firstEnd + 10),
    ];
    const batches = await collect(decodeWatchBatches(chunksOf(parts)));
    expect(batches.map((b) => b.map((e) => (e.object as KubeObject).metadata?.name))).toEqual([
      ["c1"],
      ["c2", "c3", "c4"],
    ]);
  });

  test.prop([fc.array(eventArb, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 })])(
    "the batches, flattened, are the events decodeWatchStream yields, however the stream is cut",
    async (events, positions) => {
      const parts = cut(ndjson(events), positions);
      const flat = (await collect(decodeWatchBatches(chunksOf(parts)))).flat();
      expect(flat).toEqual(await collect(decodeWatchStream(chunksOf(parts))));
      expect(flat).toHaveLength(events.length);
    },
  );

  it("a bad line throws after the events before it in the same chunk came as their own batch", async () => {
    const good = ndjson([{ type: "ADDED", object: cm("a", "1") }]);
    const gen = decodeWatchBatches(chunksOf([Buffer.concat([good, Buffer.from("not json\n"), good])]));
    const first = await gen.next();
    expect(first.done).toBe(false);
    expect((first.value as WatchEvent[]).map((e) => (e.object as KubeObject).metadata?.name)).toEqual(["a"]);
    const err = await gen.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect((err as WatchDecodeError).kind).toBe("malformed-json");
    expect((err as WatchDecodeError).offset).toBe(good.length);
  });
});

describe("decodeWatchBatches with dropManagedFields", () => {
  const withManagedFields = (o: KubeObject, fields: string): KubeObject => ({
    ...o,
    metadata: {
      ...o.metadata,
      managedFields: [
        { manager: fields, operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:data": { [fields]: {} } } },
      ],
    },
  });

  test.prop([fc.array(fc.tuple(objectArb, text), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 })])(
    "each event decodes as without the option, minus metadata.managedFields, however the stream is cut",
    async (items, positions) => {
      const events: WatchEvent[] = items.map(([o, f]) => ({ type: "MODIFIED", object: withManagedFields(o, f) }));
      const parts = cut(ndjson(events), positions);
      const plain = (await collect(decodeWatchBatches(chunksOf(parts)))).flat();
      const dropped = (await collect(decodeWatchBatches(chunksOf(parts), { dropManagedFields: true }))).flat();
      const expected = plain.map((e) => {
        const { managedFields: _m, ...metadata } = (e.object as KubeObject).metadata ?? {};
        return { ...e, object: { ...(e.object as KubeObject), metadata } };
      });
      expect(dropped).toEqual(expected);
      for (const e of dropped) expect((e.object as KubeObject).metadata).not.toHaveProperty("managedFields");
    },
  );

  it("a malformed line fails with the same kind and offset as without the option", async () => {
    const good = ndjson([{ type: "ADDED", object: withManagedFields(cm("a", "1"), "x") }]);
    const body = Buffer.concat([good, Buffer.from('{"type":"ADDED","object":{"metadata":{"managedFields":[]},}\n')]);
    const plain = await collect(decodeWatchBatches(chunksOf([body]))).catch((e: unknown) => e);
    const dropped = await collect(decodeWatchBatches(chunksOf([body]), { dropManagedFields: true })).catch(
      (e: unknown) => e,
    );
    expect(plain).toBeInstanceOf(WatchDecodeError);
    expect(dropped).toBeInstanceOf(WatchDecodeError);
    expect((dropped as WatchDecodeError).kind).toBe("malformed-json");
    expect((dropped as WatchDecodeError).offset).toBe((plain as WatchDecodeError).offset);
    expect((dropped as WatchDecodeError).message).toBe((plain as WatchDecodeError).message);
  });
});
