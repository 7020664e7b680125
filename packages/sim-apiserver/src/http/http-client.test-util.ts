// Test-only HTTP client on node:http (undici is not a dependency of this package). Real sockets, raw access to
// status, headers and the byte stream, so the tests can assert on exactly what went over the wire.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** `JSON.parse(text)`, or undefined when not JSON. */
  readonly json: unknown;
}

export interface RequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

function send(url: string, opts: RequestOptions): Promise<IncomingMessage> {
  const u = new URL(url);
  const fn = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = fn(
      u,
      {
        method: opts.method ?? "GET",
        headers: {
          ...(opts.body !== undefined && { "content-length": String(Buffer.byteLength(opts.body)) }),
          ...opts.headers,
        },
        agent: false,
        ...(opts.ca !== undefined && { ca: opts.ca }),
        ...(opts.cert !== undefined && { cert: opts.cert }),
        ...(opts.key !== undefined && { key: opts.key }),
      },
      resolve,
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** One request, whole body read. */
export async function fetchRaw(url: string, opts: RequestOptions = {}): Promise<RawResponse> {
  const res = await send(url, opts);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, json };
}

/** A streaming response read line by line (watch). */
export interface LineStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Resolves with the next complete line, or `undefined` at end of body. */
  nextLine(): Promise<string | undefined>;
  /** Parsed next line. */
  nextEvent(): Promise<{ type: string; object: Record<string, unknown> } | undefined>;
  /** Everything after the last newline once the body ended (a truncated line). */
  rest(): string;
  /** Resolves when the body ended (true) or the connection broke (false). */
  readonly ended: Promise<boolean>;
  /** Stop reading; the socket is destroyed (client disconnect). */
  close(): void;
  /** Stop consuming data without closing (a slow client). */
  pause(): void;
  /** Consume data again after {@link pause}. */
  resume(): void;
}

export async function openStream(url: string, opts: RequestOptions = {}): Promise<LineStream> {
  const res = await send(url, opts);
  let buf = "";
  const lines: string[] = [];
  const waiters: Array<(l: string | undefined) => void> = [];
  let done = false;
  const ended = new Promise<boolean>((resolve) => {
    res.on("end", () => resolve(true));
    res.on("error", () => resolve(false));
    res.on("aborted", () => resolve(false));
    res.on("close", () => resolve(res.complete));
  });
  const flush = () => {
    while (waiters.length > 0 && (lines.length > 0 || done)) waiters.shift()!(lines.shift());
  };
  res.setEncoding("utf8");
  res.on("data", (c: string) => {
    buf += c;
    let i = buf.indexOf("\n");
    while (i >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf("\n");
    }
    flush();
  });
  void ended.then(() => {
    done = true;
    flush();
  });
  const stream: LineStream = {
    status: res.statusCode ?? 0,
    headers: res.headers,
    nextLine: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        flush();
      }),
    async nextEvent() {
      const l = await stream.nextLine();
      return l === undefined ? undefined : JSON.parse(l);
    },
    rest: () => buf,
    ended,
    close: () => res.destroy(),
    pause: () => res.pause(),
    resume: () => res.resume(),
  };
  return stream;
}
