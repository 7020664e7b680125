import type { FieldError } from "@informer-ts/apimachinery";

/** Go's `%q` for the ASCII text that appears in query strings (JSON quoting is identical for printable ASCII). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * The query parameters of a list or watch request as decoded, before defaulting and validation
 * (`metainternalversion.ListOptions` right after `DecodeParameters`). `resourceVersionMatch` is the raw string so
 * validation can reject unsupported values; `sendInitialEvents` is `undefined` when the parameter is absent.
 */
export interface DecodedListOptions {
  watch: boolean;
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string;
  resourceVersionMatch: string;
  limit: number;
  continue: string;
  timeoutSeconds: number | undefined;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
}

/**
 * `metainternalversion.SetListOptionsDefaults` (called by the engine, `SimApiServer.list`/`watch`, for HTTP and
 * in-process requests alike): when the server's WatchList feature is on, a watch with
 * resourceVersion "" or "0" and neither `sendInitialEvents` nor `resourceVersionMatch` becomes a watch-list
 * (`sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`). Mutates `opts`.
 */
export function setListOptionsDefaults(opts: DecodedListOptions, watchListEnabled: boolean): void {
  if (!watchListEnabled) return;
  if (opts.sendInitialEvents !== undefined || opts.resourceVersionMatch !== "") return;
  const legacy = opts.resourceVersion === "" || opts.resourceVersion === "0";
  if (opts.watch && legacy) {
    opts.sendInitialEvents = true;
    opts.resourceVersionMatch = "NotOlderThan";
  }
}

const forbidden = (detail: string): FieldError => ({
  type: "FieldValueForbidden",
  field: "resourceVersionMatch",
  detail,
});
const supported = (values: readonly string[]) => `supported values: ${values.map(goQuote).join(", ")}`;

/**
 * `validation.ValidateListOptions` (called by the engine after {@link setListOptionsDefaults}): the field errors of a decoded, defaulted request (empty when valid). The rules
 * for a watch apply when the `watch` parameter is true (not for the legacy `/watch/` paths, as upstream).
 */
export function validateListOptions(opts: DecodedListOptions, watchListEnabled: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.watch) {
    if (opts.sendInitialEvents !== undefined) {
      if (match !== "NotOlderThan") {
        errs.push(forbidden("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
      }
      if (!watchListEnabled) {
        errs.push({
          type: "FieldValueForbidden",
          field: "sendInitialEvents",
          detail: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        });
      }
    }
    if (match !== "") {
      if (opts.sendInitialEvents === undefined) {
        errs.push(forbidden("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      }
      if (match !== "NotOlderThan") {
        errs.push({
          type: "FieldValueNotSupported",
          field: "resourceVersionMatch",
          badValue: match,
          detail: supported(["NotOlderThan"]),
        });
      }
      if (opts.continue !== "") errs.push(forbidden("resourceVersionMatch is forbidden when continue is provided"));
    }
    return errs;
  }
  if (match !== "") {
    if (opts.resourceVersion === "") {
      errs.push(forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided"));
    }
    if (opts.continue !== "") errs.push(forbidden("resourceVersionMatch is forbidden when continue is provided"));
    if (match !== "Exact" && match !== "NotOlderThan") {
      errs.push({
        type: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        badValue: match,
        detail: supported(["Exact", "NotOlderThan", ""]),
      });
    }
    if (match === "Exact" && opts.resourceVersion === "0") {
      errs.push(forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) {
    errs.push({
      type: "FieldValueForbidden",
      field: "sendInitialEvents",
      detail: "sendInitialEvents is forbidden for list",
    });
  }
  return errs;
}
