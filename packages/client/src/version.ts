/** The version of `@informer-ts/client` (kept equal to its package.json `version`; a test checks it). */
export const VERSION = "0.1.0";

/**
 * The default `User-Agent`: `informer-ts/<version> (<os>/<arch>)`, e.g. `informer-ts/0.1.0 (linux/x64)`.
 *
 * Differences from client-go: client-go's `DefaultKubernetesUserAgent` is
 * `<binary>/<version> (<GOOS>/<GOARCH>) kubernetes/<commit>`; here the product is always `informer-ts`, the
 * platform and architecture use Node's names (`process.platform`, `process.arch`) and there is no commit.
 */
export function defaultUserAgent(): string {
  return `informer-ts/${VERSION} (${process.platform}/${process.arch})`;
}
