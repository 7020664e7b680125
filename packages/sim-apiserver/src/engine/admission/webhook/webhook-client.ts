import { request as httpRequest } from "node:http";
import { type Agent, request as httpsRequest } from "node:https";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import type { Clock } from "@informer-ts/clock";

/** Where a call goes: the URL posted to, and the TLS name and CA it is verified with. */
export interface WebhookTarget {
  /** `https://host:port/path` (upstream appends `?timeout=<n>s`). */
  readonly url: string;
  /** The name the serving certificate must carry (a Service's `<name>.<namespace>.svc`); default the URL's host. */
  readonly serverName?: string;
  /** PEM CA bundle; absent: the system's roots. */
  readonly caBundle?: string;
}

/** A failed call: what upstream's `ErrCallingWebhook` wraps (`failed to call webhook: <cause>`). */
export class WebhookCallError extends Error {}

/**
 * POSTs one AdmissionReview and resolves to the decoded answer. Fails with a {@link WebhookCallError} when the
 * call cannot be made, the answer is not 2xx JSON, or `timeoutMs` (measured on `clock`) passes first — then the
 * request is aborted and the cause is `context deadline exceeded`, as Go's client reports it. The engine's
 * event loop only awaits the socket. `agent` (keep-alive) reuses TLS connections across calls; absent: one
 * connection per call.
 */
export function postReview(
  target: WebhookTarget,
  body: unknown,
  timeoutMs: number,
  clock: Clock,
  agent?: Agent,
): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return Promise.reject(new WebhookCallError(`failed to call webhook: parse "${target.url}": invalid URL`));
  }
  const post = `Post "${target.url}"`;
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: Error | undefined, value?: unknown) => {
      if (done) return;
      done = true;
      timer.stop();
      if (err !== undefined) reject(err);
      else resolve(value);
    };
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(payload),
        },
        ...(target.caBundle !== undefined && { ca: target.caBundle }),
        ...(target.serverName !== undefined && { servername: target.serverName }),
        ...(target.serverName !== undefined && {
          // Verified against the Service's DNS name rather than the endpoint address dialled.
          checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(target.serverName!, cert),
        }),
        agent: url.protocol === "https:" && agent !== undefined ? agent : false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => finish(new WebhookCallError(`failed to call webhook: ${post}: ${err.message}`)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) {
            finish(
              new WebhookCallError(
                `failed to call webhook: the server responded with the status code ${code}: ${text.trim()}`,
              ),
            );
            return;
          }
          try {
            finish(undefined, JSON.parse(text));
          } catch (err) {
            finish(new WebhookCallError(`failed to call webhook: decoding the response: ${(err as Error).message}`));
          }
        });
      },
    );
    const timer = clock.afterFunc(timeoutMs, () => {
      finish(new WebhookCallError(`failed to call webhook: ${post}: context deadline exceeded`));
      req.destroy();
    });
    req.on("error", (err) => finish(new WebhookCallError(`failed to call webhook: ${post}: ${tlsText(err)}`)));
    req.end(payload);
  });
}

/** Go's wording of the usual TLS failures (`x509: certificate signed by unknown authority`). */
function tlsText(err: Error): string {
  const code = (err as { code?: string }).code;
  if (
    code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE" ||
    code === "SELF_SIGNED_CERT_IN_CHAIN" ||
    code === "DEPTH_ZERO_SELF_SIGNED_CERT"
  )
    return `tls: failed to verify certificate: x509: certificate signed by unknown authority`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return `tls: failed to verify certificate: x509: ${err.message}`;
  return err.message;
}
