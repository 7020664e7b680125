// Engine tests of the admission webhooks: a programmable HTTPS webhook server on 127.0.0.1 and configurations
// pointing at it by URL.
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { generatePki } from "../../../http/tls.js";

/** A review as the server got it. */
export interface ReceivedReview {
  readonly path: string;
  readonly request: {
    uid: string;
    operation: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    requestResource: { group: string; version: string; resource: string };
    userInfo: { username: string; groups?: string[] };
    dryRun: boolean;
    object: Record<string, unknown> | null;
    oldObject: Record<string, unknown> | null;
  };
}

/** What the handler answers: a `response` (the uid is filled in unless given), `"hang"`, or a raw body. */
export type Answer = Record<string, unknown> | "hang" | { readonly raw: string };

export interface TestWebhookServer {
  readonly url: (path: string) => string;
  readonly caBundle: string;
  readonly received: ReceivedReview[];
  /** Resolves once `n` reviews have arrived (no polling: the request handler resolves it). */
  whenReceived(n: number): Promise<void>;
  close(): Promise<void>;
}

// One key pair per test file: RSA generation is the slow part. 2048 bits (the default): Node 24's OpenSSL refuses
// a 1024-bit serving key ("ee key too small").
const pki = generatePki();

/** Starts a server answering every POST with `handler(review)`. */
export async function startTestWebhookServer(handler: (r: ReceivedReview) => Answer): Promise<TestWebhookServer> {
  const received: ReceivedReview[] = [];
  const waiters: Array<{ readonly n: number; readonly resolve: () => void }> = [];
  const server = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { request: ReceivedReview["request"] };
      const review: ReceivedReview = { path: new URL(req.url ?? "/", "https://x").pathname, request: body.request };
      received.push(review);
      for (const w of waiters.filter((x) => received.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = handler(review);
      if (answer === "hang") return;
      const text =
        "raw" in answer
          ? String(answer.raw)
          : JSON.stringify({
              apiVersion: "admission.k8s.io/v1",
              kind: "AdmissionReview",
              response: { uid: body.request.uid, ...answer },
            });
      res.writeHead(200, { "content-type": "application/json" }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caBundle: Buffer.from(pki.ca.cert).toString("base64"),
    received,
    whenReceived: (n) =>
      received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A base64 JSON patch, as a mutating webhook's `response.patch`. */
export function patchOf(ops: unknown[]): { patchType: string; patch: string } {
  return { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}
