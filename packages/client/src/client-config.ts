import type { Clock } from "@informer-ts/clock";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import type { Dispatcher } from "undici";
import type { RateLimiter } from "./throttle.js";
import type { WatchDecoderOptions } from "./watch-decoder.js";

/** `rest.DefaultQPS`: requests per second a client may make when {@link ClientConfig.qps} is unset or 0. */
export const DEFAULT_QPS = 5;

/** `rest.DefaultBurst`: the token bucket size when {@link ClientConfig.burst} is unset or 0. */
export const DEFAULT_BURST = 10;

/** PEM text or its bytes. */
export type PemData = string | Uint8Array;

/**
 * Per-request credentials from an {@link AuthProvider}: headers to add (usually `Authorization`) and, for exec
 * plugins that hand out client certificates, the certificate and key to present.
 */
export interface RequestCredentials {
  readonly headers?: Readonly<Record<string, string>>;
  readonly clientCert?: PemData;
  readonly clientKey?: PemData;
}

/**
 * Computes the credentials for the next request (exec plugins, refreshing token files, OIDC…). Called before
 * every attempt, so it must cache what it fetched; a rejection fails that request with the provider's error.
 */
export type AuthProvider = () => Promise<RequestCredentials>;

/**
 * How to reach and authenticate to one API server (`rest.Config`). Build it directly (server URL and token are
 * enough for tests and the simulated apiserver) or load it from a kubeconfig with `loadClientConfig`.
 *
 * Authentication, in the order applied to each request: `authProvider` headers, then `tokenProvider`, then the
 * static `token`, then `username`/`password` (basic). The first that yields an `Authorization` header wins.
 */
export interface ClientConfig {
  /** Base URL: `https://host:port` or `http://host:port`, optionally with a path prefix (proxies). */
  readonly server: string;
  /** PEM CA bundle to trust instead of Node's default roots (`TLSClientConfig.CAData`). */
  readonly ca?: PemData;
  /** PEM client certificate (`TLSClientConfig.CertData`). Needs {@link ClientConfig.clientKey}. */
  readonly clientCert?: PemData;
  /** PEM private key of {@link ClientConfig.clientCert}. */
  readonly clientKey?: PemData;
  /** Static bearer token (`BearerToken`). */
  readonly token?: string;
  /** A bearer token source asked before every request (refreshing tokens); must cache. */
  readonly tokenProvider?: () => string | Promise<string>;
  /** General credential source (exec plugins and auth providers from a kubeconfig). */
  readonly authProvider?: AuthProvider;
  /** Basic auth (`Username`/`Password`). */
  readonly username?: string;
  readonly password?: string;
  /** Headers sent with every request (e.g. `Impersonate-User`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Skip server certificate verification (`TLSClientConfig.Insecure`). */
  readonly insecureSkipTLSVerify?: boolean;
  /** SNI and verification name when it differs from the URL host (`TLSClientConfig.ServerName`). */
  readonly tlsServerName?: string;
  /**
   * Client-side rate limit in requests per second (`QPS`). Unset or 0 → {@link DEFAULT_QPS}; negative →
   * no client-side rate limiting (as in client-go).
   */
  readonly qps?: number;
  /** Token bucket size (`Burst`). Unset or 0 → {@link DEFAULT_BURST}. */
  readonly burst?: number;
  /** `User-Agent` header; default `informer-ts/<version> (<os>/<arch>)`. */
  readonly userAgent?: string;
  /**
   * Overall timeout of a non-watch request in milliseconds, measured on the client's clock (`Timeout`).
   * 0 or unset = none, as in client-go. Watches are never timed out by the client.
   */
  readonly timeoutMs?: number;
  /** How long to wait for response headers (undici `headersTimeout`); default 120 000 ms. */
  readonly headersTimeoutMs?: number;
  /**
   * Do not ask for gzip (`DisableCompression`). By default the client sends `Accept-Encoding: gzip` and
   * decompresses as a stream, like Go's transport.
   */
  readonly disableCompression?: boolean;
  /** Namespace of the kubeconfig context (informational; requests take their namespace explicitly). */
  readonly namespace?: string;
}

/** A {@link ClientConfig} or kubeconfig that cannot be used; the message names the offending field. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** The effective QPS/burst of a config: `undefined` when client-side rate limiting is disabled. */
export function rateLimitOf(config: ClientConfig): { qps: number; burst: number } | undefined {
  const qps = config.qps === undefined || config.qps === 0 ? DEFAULT_QPS : config.qps;
  if (qps < 0) return undefined;
  const burst = config.burst === undefined || config.burst === 0 ? DEFAULT_BURST : config.burst;
  if (!(burst > 0) || !Number.isFinite(qps)) {
    throw new ConfigError(`burst must be > 0 when qps is > 0 (qps ${config.qps}, burst ${config.burst})`);
  }
  return { qps, burst };
}

/**
 * Checks a config and returns its server URL parsed. Throws {@link ConfigError} for a missing or non-HTTP(S)
 * server, or a client certificate without a key (and the reverse).
 */
export function validateClientConfig(config: ClientConfig): URL {
  if (typeof config.server !== "string" || config.server === "") {
    throw new ConfigError("invalid configuration: no server URL (server) was provided");
  }
  let url: URL;
  try {
    url = new URL(config.server);
  } catch {
    throw new ConfigError(`invalid configuration: server ${JSON.stringify(config.server)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError(`invalid configuration: server ${JSON.stringify(config.server)} must be http:// or https://`);
  }
  if ((config.clientCert === undefined) !== (config.clientKey === undefined)) {
    throw new ConfigError("invalid configuration: clientCert and clientKey must be given together");
  }
  if (config.username !== undefined && config.password === undefined) {
    throw new ConfigError("invalid configuration: username without password");
  }
  rateLimitOf(config);
  return url;
}

/**
 * Options of a `KubeClient` beyond its {@link ClientConfig}: what client-go's `rest.Config` also carries besides the
 * connection (rate limiter, transport, metrics), plus the clock.
 */
export interface KubeClientOptions {
  /** Clock for Retry-After sleeps, the rate limiter, timeouts and durations. Default: real time. */
  readonly clock?: Clock;
  /** Metrics sink (client-go names). Default: none. */
  readonly metrics?: MetricsProvider;
  /**
   * Client-side rate limiter. Default: a token bucket of the config's qps/burst (5/10), or none when the config's
   * qps is negative. `null` disables client-side rate limiting.
   */
  readonly rateLimiter?: RateLimiter | null;
  /** Retries after a Retry-After answer or a retryable transport error (`MaxRetries`); default 10. */
  readonly maxRetries?: number;
  /** Use this undici dispatcher instead of building agents from the config's TLS settings (tests, proxies). */
  readonly dispatcher?: Dispatcher;
  /** Watch decoding limits. */
  readonly watchDecoder?: WatchDecoderOptions;
  /**
   * Where the client logs (`@informer-ts/instrumentation`'s `Logger`, the runtime's contract): retries (`info`),
   * requests that failed for good — a transport error after the last attempt or a 5xx answer (`warn`; 4xx answers
   * are results, not logged) — and client-side throttling waits over a second (`info`, at most once a second; the
   * first a `warn` naming the qps/burst to raise). Default: `newRuntimeLogger({ name: "client" })` — JSON lines on
   * stderr, readable lines on a terminal, `info` and up. A Manager built by `newManager` passes its own.
   */
  readonly logger?: Logger;
  /** Log nothing (tests, tools with their own reporting); overrides {@link KubeClientOptions.logger}. */
  readonly quiet?: boolean;
}
