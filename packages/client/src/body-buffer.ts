import { StringDecoder } from "node:string_decoder";
/** Default {@link BodyBuffer} `maxPreallocatedBytes`: 256 MiB. */
export const MAX_PREALLOCATED_BODY_BYTES = 256 * 1024 * 1024;

/**
 * Collects a response body's chunks into one buffer, keeping at most `limit` bytes (the rest is dropped).
 *
 * With an announced size (`Content-Length`), it allocates one buffer of that size up front, capped at
 * `maxPreallocatedBytes` (so a lying header cannot make it allocate much before the bytes arrive). Each chunk is
 * copied in as it arrives, so the chunks themselves are released at once. When the body outgrows the buffer, the
 * buffer grows straight to the announced size (still within `limit`) the first time, and doubles only once the
 * body runs past the announced size (a server that lies). So for a body no longer than announced, at most the
 * capped buffer and one buffer of the body's size are alive at the same time, and only during that one copy.
 *
 * Without an announced size (a chunked body: kube-apiserver streams large lists) each chunk is decoded to text as it
 * arrives (multi-byte characters split across chunks are carried over) and released.
 */
export class BodyBuffer {
  private buf: Buffer | undefined;
  /**
   * Without an announced size (a chunked body, e.g. kube-apiserver's streamed lists) the bytes are decoded as they
   * arrive, so what is held is the text, not the bytes and then a concatenated copy of them as well.
   */
  private readonly decoder: StringDecoder | undefined;
  private readonly parts: string[] = [];
  private size = 0;

  constructor(
    /** The body size announced by the server, if any (uncompressed bodies only). */
    private readonly announced: number | undefined,
    /** Bytes kept at most. */
    private readonly limit: number,
    /** Largest buffer allocated before the bytes arrive. */
    maxPreallocatedBytes: number = MAX_PREALLOCATED_BODY_BYTES,
  ) {
    if (announced !== undefined) this.buf = Buffer.allocUnsafe(Math.min(announced, limit, maxPreallocatedBytes));
    else this.decoder = new StringDecoder("utf8");
  }

  /** Bytes kept so far. */
  get length(): number {
    return this.size;
  }

  /** Size of the current buffer; `undefined` without an announced size (chunks are decoded as they come). */
  get capacity(): number | undefined {
    return this.buf?.length;
  }

  /** Whether `limit` bytes are kept (further chunks are dropped). */
  get full(): boolean {
    return this.size >= this.limit;
  }

  /** Appends a chunk, or as much of it as `limit` leaves room for. */
  append(chunk: Uint8Array | string): void {
    if (this.size >= this.limit) return;
    const b =
      typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const keep = b.length <= this.limit - this.size ? b : b.subarray(0, this.limit - this.size);
    let buf = this.buf;
    if (buf === undefined) {
      this.parts.push(this.decoder!.write(keep));
    } else {
      const needed = this.size + keep.length;
      if (needed > buf.length) {
        // The first growth goes to the announced size at once (the up-front buffer was capped); past the
        // announced size (a server may lie) double. `needed` never exceeds `limit`.
        const target = this.announced !== undefined && this.announced > buf.length ? this.announced : buf.length * 2;
        const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(target, needed)));
        buf.copy(grown, 0, 0, this.size);
        buf = grown;
        this.buf = grown;
      }
      keep.copy(buf, this.size);
    }
    this.size += keep.length;
  }

  /** The kept bytes as UTF-8 text. */
  text(): string {
    if (this.buf !== undefined) return this.buf.toString("utf8", 0, this.size);
    const tail = this.decoder!.end();
    if (tail !== "") this.parts.push(tail);
    return this.parts.join("");
  }
}
