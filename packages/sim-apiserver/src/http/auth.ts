import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";

/**
 * How the server authenticates requests. With neither a token nor client certificates configured every request is
 * anonymous and allowed (the plain-HTTP default). Otherwise a request must present `Authorization: Bearer <token>`
 * matching one of `tokens`, or (over HTTPS with `clientCa` configured) a client certificate signed by that CA.
 * There is no authorization step: an authenticated user may do everything.
 */
export interface AuthOptions {
  /** Accepted bearer tokens. */
  readonly tokens?: readonly string[];
  /** Accept client certificates signed by the server's client CA (HTTPS only). */
  readonly clientCertificates?: boolean;
  /** Paths served without authentication (default: `/healthz`, `/readyz`, `/livez`, `/version`), like the
   * `system:public-info-viewer` role. */
  readonly publicPaths?: readonly string[];
}

/** The authenticated identity of a request (for logs). */
export interface UserInfo {
  readonly name: string;
  readonly method: "anonymous" | "token" | "x509";
}

const DEFAULT_PUBLIC = ["/healthz", "/readyz", "/livez", "/version"];

function tokenMatches(given: string, tokens: readonly string[]): boolean {
  const g = Buffer.from(given);
  let ok = false;
  for (const t of tokens) {
    const b = Buffer.from(t);
    if (b.length === g.length && timingSafeEqual(b, g)) ok = true;
  }
  return ok;
}

/** Whether authentication is required at all with these options. */
export function authRequired(opts: AuthOptions | undefined): boolean {
  return opts !== undefined && ((opts.tokens?.length ?? 0) > 0 || opts.clientCertificates === true);
}

/**
 * Authenticates `req` (`authentication.WithAuthentication`): returns the user, or `undefined` when credentials are
 * required and missing or wrong (the caller answers 401 `Unauthorized`).
 */
export function authenticate(req: IncomingMessage, path: string, opts: AuthOptions | undefined): UserInfo | undefined {
  if (!authRequired(opts)) return { name: "system:anonymous", method: "anonymous" };
  const header = req.headers.authorization;
  if (header !== undefined && opts?.tokens !== undefined) {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (m !== null && tokenMatches(m[1]!.trim(), opts.tokens)) return { name: "sim-token-user", method: "token" };
    // A wrong token is a failed authentication (401), not an anonymous request.
    if (m !== null) return undefined;
  }
  if (opts?.clientCertificates === true) {
    const sock = req.socket as Partial<TLSSocket>;
    if (sock.encrypted === true && sock.authorized === true && typeof sock.getPeerCertificate === "function") {
      const peer = sock.getPeerCertificate();
      const cn = peer?.subject?.CN;
      const name = Array.isArray(cn) ? (cn[0] ?? "") : (cn ?? "");
      if (name !== "") return { name, method: "x509" };
    }
  }
  if ((opts?.publicPaths ?? DEFAULT_PUBLIC).includes(path)) return { name: "system:anonymous", method: "anonymous" };
  return undefined;
}
