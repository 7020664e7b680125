import {
  type ListOptions,
  newBadRequest,
  parseFieldSelector,
  parseLabelSelector,
  type ResourceVersionMatch,
  SelectorParseError,
  type StatusError,
} from "@informer-ts/apimachinery";
import type { DecodedListOptions } from "../engine/list-options.js";
import { fieldSelectorRequiresExactMatch } from "./internal/field-name.js";

/**
 * `runtime.Convert_Slice_string_To_bool`: how kube-apiserver reads a boolean query parameter. `null` (the parameter
 * is absent) is false; `"0"` and any case of `"false"` are false; **every other value is true**, including `""`
 * (`?watch`), `"True"`, `"1"`, `"t"`, and even `"f"` or `"no"`. It never fails.
 *
 * Differences from Go's `strconv.ParseBool`: the apiserver does not use ParseBool for query parameters, so there is
 * no 400 for an unparsable boolean; this mirrors the server, not ParseBool (the ParseBool true forms `1 t T TRUE true
 * True` are all true here too; of its false forms only `0 false FALSE False` are false).
 */
export function parseQueryBool(value: string | null): boolean {
  if (value === null) return false;
  return !(value === "0" || value.toLowerCase() === "false");
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `strconv.ParseInt(s, 10, 64)` as used by `runtime.Convert_Slice_string_To_int64` for `limit` and
 * `timeoutSeconds`: an optional sign and decimal digits within int64. Throws a 400 BadRequest StatusError with Go's
 * message (`strconv.ParseInt: parsing "x": invalid syntax` / `… value out of range`), which is what
 * `DecodeParameters` returns to the handler.
 *
 * Differences from kube-apiserver: values beyond ±2^53 are accepted but lose precision as a JS number.
 */
export function parseQueryInt64(value: string): number {
  const fail = (why: string): StatusError => newBadRequest(`strconv.ParseInt: parsing ${goQuote(value)}: ${why}`);
  if (!/^[+-]?[0-9]+$/.test(value)) throw fail("invalid syntax");
  const n = BigInt(value);
  if (n < INT64_MIN || n > INT64_MAX) throw fail("value out of range");
  return Number(n);
}

/** Go's `%q` for the ASCII text that appears in query strings (JSON quoting is identical for printable ASCII). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * `ParameterCodec.DecodeParameters(query, meta.k8s.io/v1, &metainternalversion.ListOptions{})`: reads the list and
 * watch parameters (first value of each), ignores every other parameter, and parses the label and field selectors'
 * syntax as the decoder does when it converts them to selectors. Throws a 400 StatusError for an unparsable integer
 * or a malformed selector; nothing is defaulted or validated here.
 */
export function decodeListOptions(query: URLSearchParams): DecodedListOptions {
  const str = (k: string) => query.get(k) ?? "";
  const int = (k: string) => {
    const v = query.get(k);
    return v === null ? undefined : parseQueryInt64(v);
  };
  const labelSelector = str("labelSelector");
  const fieldSelector = str("fieldSelector");
  try {
    if (labelSelector !== "") parseLabelSelector(labelSelector);
    if (fieldSelector !== "") parseFieldSelector(fieldSelector);
  } catch (err) {
    if (err instanceof SelectorParseError) throw newBadRequest(err.detail);
    throw err;
  }
  return {
    watch: parseQueryBool(query.get("watch")),
    labelSelector,
    fieldSelector,
    resourceVersion: str("resourceVersion"),
    resourceVersionMatch: str("resourceVersionMatch"),
    limit: int("limit") ?? 0,
    continue: str("continue"),
    timeoutSeconds: int("timeoutSeconds"),
    allowWatchBookmarks: parseQueryBool(query.get("allowWatchBookmarks")),
    sendInitialEvents: query.has("sendInitialEvents") ? parseQueryBool(query.get("sendInitialEvents")) : undefined,
  };
}

/** What {@link listOptionsFromQuery} needs to know about the request. */
export interface ListQueryContext {
  /** The object name from the URL (the legacy `/watch/…/<name>` path), if any. */
  readonly name?: string;
}

/** The typed result of {@link listOptionsFromQuery}. */
export interface ListQuery {
  /** The `watch` query parameter (the legacy `/watch/` path forces a watch on its own). */
  readonly watch: boolean;
  readonly options: ListOptions;
}

/**
 * The HTTP half of the handler's `listOpts()`: decode the query ({@link decodeListOptions}), then fold an object name
 * from the URL into the field selector. Throws a 400 StatusError for undecodable parameters (integers, selector
 * syntax) or a field selector that names another object (`fieldSelector metadata.name doesn't match requested
 * name`). Defaulting, the 422 validation matrix, the field-label check and the default watch timeout are the
 * engine's (`SimApiServer.list`/`watch`), so HTTP and in-process requests share one implementation.
 *
 * Differences from kube-apiserver: the name is folded in before the engine validates, so on a `/watch/…/<name>`
 * path a conflicting `fieldSelector` gets its 400 ahead of a 422 or an unknown-field-label 400 that kube-apiserver
 * would report first.
 */
export function listOptionsFromQuery(query: URLSearchParams, ctx: ListQueryContext = {}): ListQuery {
  const d = decodeListOptions(query);
  let fieldSelector = d.fieldSelector;
  if (ctx.name !== undefined) {
    if (fieldSelector.trim() !== "" && !isEmptyFieldSelector(fieldSelector)) {
      if (fieldSelectorRequiresExactMatch(fieldSelector, "metadata.name") !== ctx.name) {
        throw newBadRequest("fieldSelector metadata.name doesn't match requested name");
      }
    } else {
      fieldSelector = `metadata.name=${escapeFieldValue(ctx.name)}`;
    }
  }
  const options: ListOptions = {};
  if (d.labelSelector !== "") options.labelSelector = d.labelSelector;
  if (fieldSelector !== "") options.fieldSelector = fieldSelector;
  if (d.resourceVersion !== "") options.resourceVersion = d.resourceVersion;
  if (d.resourceVersionMatch !== "") options.resourceVersionMatch = d.resourceVersionMatch as ResourceVersionMatch;
  if (d.limit !== 0) options.limit = d.limit;
  if (d.continue !== "") options.continue = d.continue;
  if (d.timeoutSeconds !== undefined) options.timeoutSeconds = d.timeoutSeconds;
  if (d.allowWatchBookmarks) options.allowWatchBookmarks = true;
  if (d.sendInitialEvents !== undefined) options.sendInitialEvents = d.sendInitialEvents;
  return { watch: d.watch, options };
}

function isEmptyFieldSelector(s: string): boolean {
  // Terms that are empty, or `=` alone, select everything (fields.ParseSelector drops them).
  return s.split(",").every((t) => t.trim() === "" || t.trim() === "=");
}

/** `fields.EscapeValue`: backslash-escapes `\`, `,` and `=`. */
function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * The parameters of create/update/patch/delete the simulator accepts (`CreateOptions`, `UpdateOptions`,
 * `PatchOptions`, `DeleteOptions` from the query). They are accepted and reported, not enforced, except `dryRun`.
 */
export interface WriteQuery {
  readonly fieldManager?: string;
  readonly fieldValidation?: string;
  /** `dryRun=All` (any non-empty list): the request is validated but nothing is stored. */
  readonly dryRun: boolean;
  /** Apply patches: `force=true` takes ownership of conflicting fields. */
  readonly force?: boolean;
}

/** Reads {@link WriteQuery} from a query string. Never throws. */
export function writeOptionsFromQuery(query: URLSearchParams): WriteQuery {
  const fieldManager = query.get("fieldManager") ?? undefined;
  const fieldValidation = query.get("fieldValidation") ?? undefined;
  return {
    ...(fieldManager !== undefined && { fieldManager }),
    ...(fieldValidation !== undefined && { fieldValidation }),
    dryRun: query.getAll("dryRun").length > 0,
    ...(query.get("force") !== null && { force: parseQueryBool(query.get("force")) }),
  };
}
