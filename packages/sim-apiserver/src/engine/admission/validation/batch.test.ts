import { describe, expect, it } from "vitest";
import { validateCronJobTimeZone } from "./batch.js";

// pkg/apis/batch/validation/validation_test.go TestValidateCronJob's time-zone cases: the zone and the detail of
// its error (none when valid).
describe("TestValidateCronJob (spec.timeZone)", () => {
  const cases: { name: string; zone: unknown; detail?: string }[] = [
    { name: "unset", zone: undefined },
    { name: "UTC", zone: "UTC" },
    { name: "America/New_York", zone: "America/New_York" },
    { name: "Etc/GMT+5", zone: "Etc/GMT+5" },
    { name: "empty", zone: "", detail: "timeZone must be nil or non-empty string" },
    { name: "bad-time-zone", zone: "bad-time-zone", detail: "unknown time zone bad-time-zone" },
    { name: "dot part", zone: "America/..", detail: "unknown time zone America/.." },
    { name: "leading dash", zone: "-UTC", detail: "unknown time zone -UTC" },
    { name: "space", zone: "America/New York", detail: "unknown time zone America/New York" },
    { name: "part too long", zone: "Americaaaaaaaaa/X", detail: "unknown time zone Americaaaaaaaaa/X" },
    {
      name: "Local",
      zone: "local",
      detail: "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const errs = validateCronJobTimeZone(tc.zone);
      if (tc.detail === undefined) expect(errs).toEqual([]);
      else
        expect(errs).toEqual([
          { type: "FieldValueInvalid", field: "spec.timeZone", badValue: String(tc.zone), detail: tc.detail },
        ]);
    });
  }
});
