// ListOptions as query parameters, the way client-go's parameter codec encodes them: shared by the client (its
// request URLs) and the simulated apiserver (the request URI it records for in-process requests).
import type { ListOptions } from "./types.js";

/**
 * Go's `time.Duration.String()` for whole seconds: `45s`, `5m0s`, `1h0m0s`. client-go sends a watch's or
 * list's `timeoutSeconds` a second time as the `timeout` query parameter in this form.
 */
export function goDurationSeconds(seconds: number): string {
  const s = Math.trunc(seconds);
  if (s === 0) return "0s";
  const sign = s < 0 ? "-" : "";
  let rest = Math.abs(s);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const sec = rest - m * 60;
  if (h > 0) return `${sign}${h}h${m}m${sec}s`;
  if (m > 0) return `${sign}${m}m${sec}s`;
  return `${sign}${sec}s`;
}

/**
 * Query parameters of a list or watch (`metav1.ListOptions` through the parameter codec): only fields that are
 * set (and non-empty / non-zero, like Go's `omitempty`), plus `watch=true` for a watch and `timeout=<duration>`
 * when `timeoutSeconds` is set, as the typed clients do. Keys come out sorted, as Go's `url.Values.Encode`.
 */
export function listOptionsQuery(options: ListOptions, watch: boolean): URLSearchParams {
  const entries: [string, string][] = [];
  const add = (k: string, v: string | number | boolean | undefined) => {
    if (v === undefined || v === "" || v === 0 || v === false) return;
    entries.push([k, String(v)]);
  };
  add("allowWatchBookmarks", options.allowWatchBookmarks);
  add("continue", options.continue);
  add("fieldSelector", options.fieldSelector);
  add("labelSelector", options.labelSelector);
  add("limit", options.limit);
  add("resourceVersion", options.resourceVersion);
  add("resourceVersionMatch", options.resourceVersionMatch);
  // sendInitialEvents is a *bool in Go: an explicit false is sent.
  if (options.sendInitialEvents !== undefined) entries.push(["sendInitialEvents", String(options.sendInitialEvents)]);
  // timeoutSeconds is an *int64 (sent when set, even 0); `timeout` only when it is non-zero.
  if (options.timeoutSeconds !== undefined) {
    if (options.timeoutSeconds !== 0) entries.push(["timeout", goDurationSeconds(options.timeoutSeconds)]);
    entries.push(["timeoutSeconds", String(options.timeoutSeconds)]);
  }
  if (watch) entries.push(["watch", "true"]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new URLSearchParams(entries);
}
