import { Agent } from "undici";
import type { ClientConfig, PemData } from "./client-config.js";

/** Default {@link ClientConfig.headersTimeoutMs}. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 120_000;

/** How long an idle keep-alive connection is kept (Go's `IdleConnTimeout` is 90 s; servers may ask for less). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;

/** TLS material for one connection pool. */
export interface TLSMaterial {
  readonly ca?: PemData;
  readonly cert?: PemData;
  readonly key?: PemData;
  readonly insecureSkipTLSVerify?: boolean;
  readonly serverName?: string;
}

function pem(data: PemData | undefined): string | Buffer | undefined {
  if (data === undefined) return undefined;
  return typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** The TLS material of a config, optionally with a client certificate supplied by an auth provider. */
export function tlsMaterialFor(config: ClientConfig, cert?: PemData, key?: PemData): TLSMaterial {
  const m: { -readonly [K in keyof TLSMaterial]: TLSMaterial[K] } = {};
  if (config.ca !== undefined) m.ca = config.ca;
  const c = cert ?? config.clientCert;
  const k = key ?? config.clientKey;
  if (c !== undefined) m.cert = c;
  if (k !== undefined) m.key = k;
  if (config.insecureSkipTLSVerify === true) m.insecureSkipTLSVerify = true;
  if (config.tlsServerName !== undefined) m.serverName = config.tlsServerName;
  return m;
}

/**
 * An undici `Agent` for one API server (`rest.HTTPClientFor` / `transport.TLSConfigFor`): trusts `ca` (else Node's
 * roots), presents the client certificate if any, keeps connections alive, and sets no body timeout of its own:
 * the REST client passes `bodyTimeout: 0` for watches and undici's default for other requests per request.
 * Connections are unlimited per origin (each HTTP/1.1 watch holds one).
 *
 * Differences from client-go: HTTP/1.1 only (client-go negotiates HTTP/2 and multiplexes watches on one
 * connection); no proxy support.
 */
export function newAgent(tls: TLSMaterial, headersTimeoutMs: number = DEFAULT_HEADERS_TIMEOUT_MS): Agent {
  const connect: Record<string, unknown> = {};
  const ca = pem(tls.ca);
  const cert = pem(tls.cert);
  const key = pem(tls.key);
  if (ca !== undefined) connect.ca = ca;
  if (cert !== undefined) connect.cert = cert;
  if (key !== undefined) connect.key = key;
  if (tls.insecureSkipTLSVerify === true) connect.rejectUnauthorized = false;
  if (tls.serverName !== undefined) connect.servername = tls.serverName;
  return new Agent({
    connect,
    headersTimeout: headersTimeoutMs,
    keepAliveTimeout: DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    keepAliveMaxTimeout: 90_000,
  });
}
