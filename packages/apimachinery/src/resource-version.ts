import { newBadRequest } from "./errors/index.js";
import { goQuote } from "./internal/go-strings.js";

const MAX_UINT64 = 18446744073709551615n;

/**
 * Parses a resourceVersion as kube-apiserver's storage does (`APIObjectVersioner.ParseResourceVersion`):
 * `undefined`, `""` and `"0"` are 0; anything else must be an unsigned 64-bit decimal (`strconv.ParseUint`:
 * digits only, no sign, leading zeros allowed). Only server-side code (the simulated apiserver) should call
 * this; clients keep resource versions as opaque strings and never compare them.
 *
 * @throws {StatusError} 400 BadRequest, worded as the storage layer's validation words it:
 *   `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
 *   (or `… value out of range` above 2^64-1).
 */
export function parseResourceVersion(rv: string | undefined): bigint {
  if (rv === undefined || rv === "" || rv === "0") return 0n;
  let problem: string | undefined;
  if (!/^[0-9]+$/.test(rv)) problem = "invalid syntax";
  else if (BigInt(rv) > MAX_UINT64) problem = "value out of range";
  if (problem !== undefined) {
    const q = goQuote(rv);
    throw newBadRequest(
      `invalid resource version: resourceVersion: Invalid value: ${q}: strconv.ParseUint: parsing ${q}: ${problem}`,
    );
  }
  return BigInt(rv);
}

/**
 * The value client-go reports for the `informer_store_resource_version` gauge
 * (`parseRVForMetricsWithTruncation`): "" is 0; otherwise the last 15 characters are parsed as a signed decimal
 * integer (Go's `ParseInt`), which keeps the number below 2^53. Returns `undefined` when that parse fails; the
 * caller then leaves the gauge alone.
 */
export function resourceVersionMetricValue(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === "") return 0;
  const tail = rv.length > 15 ? rv.slice(rv.length - 15) : rv;
  if (!/^[+-]?[0-9]+$/.test(tail)) return undefined;
  return Number(tail);
}
