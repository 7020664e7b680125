import type { ClientConfig, PemData } from "./client-config.js";

/** The headers of one attempt, and the client certificate an auth provider asked to present (if any). */
export interface AttemptCredentials {
  readonly headers: Record<string, string>;
  readonly cert?: PemData;
  readonly key?: PemData;
}

/** What a request adds to the config's headers. */
export interface RequestHeaderSpec {
  /** `User-Agent` (already defaulted by the caller). */
  readonly userAgent: string;
  /** `Content-Type` of the body, if any. */
  readonly contentType?: string;
  /** `Accept`; default `application/json, *\/*`. */
  readonly accept?: string;
}

/** client-go's default `Accept` for JSON clients. */
export const DEFAULT_ACCEPT = "application/json, */*";

/**
 * The headers of one attempt, as client-go's `transport` round trippers add them (`round_trippers.go`:
 * user agent, impersonation/extra headers, basic auth, bearer token, exec/auth-provider credentials), asked for
 * anew on every attempt so rotating tokens are picked up. Header names are lower-cased.
 *
 * Authorization precedence: `authProvider` headers, then `tokenProvider`, then `token`, then basic auth. A
 * throwing provider rejects (the request fails with that error, nothing is sent).
 */
export async function attemptCredentials(config: ClientConfig, spec: RequestHeaderSpec): Promise<AttemptCredentials> {
  const h: Record<string, string> = {
    "user-agent": spec.userAgent,
    accept: spec.accept ?? DEFAULT_ACCEPT,
  };
  if (config.disableCompression !== true) h["accept-encoding"] = "gzip";
  if (spec.contentType !== undefined) h["content-type"] = spec.contentType;
  for (const [k, v] of Object.entries(config.headers ?? {})) h[k.toLowerCase()] = v;
  if (config.username !== undefined) {
    h.authorization = `Basic ${Buffer.from(`${config.username}:${config.password ?? ""}`).toString("base64")}`;
  }
  if (config.token !== undefined && config.token !== "") h.authorization = `Bearer ${config.token}`;
  if (config.tokenProvider !== undefined) {
    const token = await config.tokenProvider();
    if (token !== "") h.authorization = `Bearer ${token}`;
  }
  let cert: PemData | undefined;
  let key: PemData | undefined;
  if (config.authProvider !== undefined) {
    const creds = await config.authProvider();
    for (const [k, v] of Object.entries(creds.headers ?? {})) h[k.toLowerCase()] = v;
    cert = creds.clientCert;
    key = creds.clientKey;
  }
  return { headers: h, ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };
}
