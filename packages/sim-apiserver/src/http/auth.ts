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

/** The authenticated identity of a request (`user.Info`). */
export interface UserInfo {
  readonly name: string;
  /** How it authenticated: a static `--token`, a service-account token the backend issued, a client certificate;
   * `impersonated` for the identity a request acts as through `Impersonate-*` headers. */
  readonly method: "anonymous" | "token" | "serviceaccount" | "x509" | "impersonated";
  /** The groups the credential carries (a token line's groups, a client certificate's organizations). */
  readonly groups?: readonly string[];
  /** The user's uid (a service account's, or the impersonated `Impersonate-Uid`). */
  readonly uid?: string;
  /** Extra attributes (a bound service-account token's pod and node, `Impersonate-Extra-*`). */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A service-account token authenticator (the backend's): the token's user, or why it does not authenticate. */
export type BearerTokenAuthenticator = (token: string) =>
  | {
      readonly ok: true;
      readonly username: string;
      readonly uid: string;
      readonly groups: readonly string[];
      readonly extra: Readonly<Record<string, readonly string[]>>;
    }
  | { readonly ok: false; readonly error: string };

const DEFAULT_PUBLIC = ["/healthz", "/readyz", "/livez", "/version"];

/** A `--token` entry: the token and the user it stands for (`tokenfile.NewCSV`'s fields). */
export function parseTokenEntry(entry: string): { readonly token: string; readonly user: UserInfo } {
  const [token = "", name = "", uid = "", ...groups] = entry.split(",").map((f) => f.trim().replace(/^"|"$/g, ""));
  return {
    token,
    user: {
      name: name === "" ? "sim-token-user" : name,
      method: "token",
      ...(groups.length > 0 && { groups: groups.filter((g) => g !== "") }),
      ...(uid !== "" && { uid }),
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

function serviceAccountUser(
  token: string,
  serviceAccounts: BearerTokenAuthenticator | undefined,
): UserInfo | undefined {
  const a = serviceAccounts?.(token);
  if (a === undefined || !a.ok) return undefined;
  return { name: a.username, method: "serviceaccount", groups: a.groups, uid: a.uid, extra: a.extra };
}

/**
 * Authenticates `req` (`authentication.WithAuthentication`): returns the user, or `undefined` when credentials are
 * required and missing or wrong (the caller answers 401 `Unauthorized`). A bearer token is one of `opts.tokens` or
 * a service-account token `serviceAccounts` accepts (kube-apiserver's token authenticators in a union).
 *
 * Without authentication configured ({@link authRequired} false) a valid service-account token still names its
 * account; any other credential is ignored and the request is anonymous (kube-apiserver would answer a bad token
 * 401).
 */
export function authenticate(
  req: IncomingMessage,
  path: string,
  opts: AuthOptions | undefined,
  serviceAccounts?: BearerTokenAuthenticator,
): UserInfo | undefined {
  const header = req.headers.authorization;
  const bearer = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  const token = bearer === null ? undefined : bearer[1]!.trim();
  if (!authRequired(opts)) {
    return (
      (token === undefined ? undefined : serviceAccountUser(token, serviceAccounts)) ?? {
        name: "system:anonymous",
        method: "anonymous",
      }
    );
  }
  if (token !== undefined) {
    const user =
      (opts?.tokens === undefined ? undefined : tokenUser(token, opts.tokens)) ??
      serviceAccountUser(token, serviceAccounts);
    if (user !== undefined) return user;
    // A wrong token is a failed authentication (401), not an anonymous request.
    return undefined;
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
