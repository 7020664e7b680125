import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { objectAt } from "./common.js";

/** `validTimeZoneCharacters`: each `/`-separated part of an IANA zone name. */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** Whether the runtime's time-zone database knows `zone` (Go's `time.LoadLocation` succeeding). */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * `validateTimeZone` of a CronJob's `spec.timeZone` (pkg/apis/batch/validation/validation.go): unset is fine; an
 * empty string, a part that is `.`/`..`, starts with `-` or has other characters than `[A-Za-z.-_0-9+]` (at most 14),
 * `Local` (any case), or a zone the time-zone database does not know is Invalid. The database is the JavaScript
 * runtime's (ICU) instead of Go's tzdata: a zone only one of them knows is judged differently.
 */
export function validateCronJobTimeZone(timeZone: unknown, field = "spec.timeZone"): FieldError[] {
  if (timeZone === undefined || timeZone === null) return [];
  const zone = String(timeZone);
  const invalid = (detail: string): FieldError[] => [{ type: "FieldValueInvalid", field, badValue: zone, detail }];
  if (zone === "") return invalid("timeZone must be nil or non-empty string");
  for (const part of zone.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !TIME_ZONE_PART.test(part)) {
      return invalid(`unknown time zone ${zone}`);
    }
  }
  if (zone.toLowerCase() === "local") {
    return invalid("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  }
  if (!knownTimeZone(zone)) return invalid(`unknown time zone ${zone}`);
  return [];
}

/** The part of `ValidateCronJobCreate`/`Update` checked here: `spec.timeZone`. */
export function validateCronJob(cj: KubeObject): FieldError[] {
  return validateCronJobTimeZone(objectAt(cj.spec)?.timeZone);
}
