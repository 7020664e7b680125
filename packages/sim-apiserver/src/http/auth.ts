import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";

/**
 * How the server authenticates requests. With neither a token nor client certificates configured every request is
 * anonymous and allowed (the plain-HTTP default). Otherwise a request must present `Authorization: Bearer <token>`
 * matching one of `tokens`, or (over HTTPS with `clientCa` configured) a client certificate signed by that CA.
 * What the user may do is the engine's authorizer's business (`authorization` option, AlwaysAllow by default).
 */
export interface AuthOptions {
  /**
   * Accepted bearer tokens. A plain token authenticates `sim-token-user`; `token,user[,uid[,group,…]]` (the fields
   * of kube-apiserver's `--token-auth-file` line, groups unquoted) authenticates that user in those groups.
   */
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
  /** The groups the credential carries (a token line's groups, a client certificate's organizations). */
  readonly groups?: readonly string[];
}

const DEFAULT_PUBLIC = ["/healthz", "/readyz", "/livez", "/version"];

/** A `--token` entry: the token and the user it stands for (`tokenfile.NewCSV`'s fields). */
export function parseTokenEntry(entry: string): { readonly token: string; readonly user: UserInfo } {
  const [token = "", name = "", , ...groups] = entry.split(",").map((f) => f.trim().replace(/^"|"$/g, ""));
  return {
    token,
    user: {
      name: name === "" ? "sim-token-user" : name,
      method: "token",
      ...(groups.length > 0 && { groups: groups.filter((g) => g !== "") }),
    },
  };
}

function tokenUser(given: string, tokens: readonly string[]): UserInfo | undefined {
  const g = Buffer.from(given);
  let user: UserInfo | undefined;
  for (const t of tokens) {
    const entry = parseTokenEntry(t);
    const b = Buffer.from(entry.token);
    if (b.length === g.length && timingSafeEqual(b, g)) user ??= entry.user;
  }
  return user;
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
    const user = m === null ? undefined : tokenUser(m[1]!.trim(), opts.tokens);
    if (user !== undefined) return user;
    // A wrong token is a failed authentication (401), not an anonymous request.
    if (m !== null) return undefined;
  }
  if (opts?.clientCertificates === true) {
    const sock = req.socket as Partial<TLSSocket>;
    if (sock.encrypted === true && sock.authorized === true && typeof sock.getPeerCertificate === "function") {
      const peer = sock.getPeerCertificate();
      const cn = peer?.subject?.CN;
      const name = Array.isArray(cn) ? (cn[0] ?? "") : (cn ?? "");
      const o = peer?.subject?.O;
      const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
      if (name !== "") return { name, method: "x509", ...(groups.length > 0 && { groups }) };
    }
  }
  if ((opts?.publicPaths ?? DEFAULT_PUBLIC).includes(path)) return { name: "system:anonymous", method: "anonymous" };
  return undefined;
}
