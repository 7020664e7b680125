// Cases of pkg/controller/cronjob/utils_test.go (TestMostRecentScheduleTime, TestNextScheduleTime,
// TestGetJobFromTemplate2, TestNextScheduleTimeDuration) as tables, and parse errors of the schedule.
import type { CronJob } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  getJobFromTemplate,
  getTimeHashInMinutes,
  mostRecentScheduleTime,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from "./cronjob-utils.js";
import { parseSchedule, UnparseableScheduleError } from "./schedule.js";

const T = (s: string) => Date.parse(s);
const topOfTheHour = T("2016-05-19T10:00:00Z");
const H = 3_600_000;

function cj(created: number, last?: number, sds?: number) {
  return {
    metadata: {
      name: "mycronjob",
      namespace: "snazzycats",
      uid: "1a2b3c",
      creationTimestamp: new Date(created).toISOString(),
    },
    spec: { ...(sds !== undefined && { startingDeadlineSeconds: sds }) },
    status: { ...(last !== undefined && { lastScheduleTime: new Date(last).toISOString() }) },
  };
}

describe("TestMostRecentScheduleTime (pkg/controller/cronjob/utils_test.go)", () => {
  const hourly = parseSchedule("0 * * * *");
  const cases = [
    {
      name: "now before next schedule",
      cj: cj(topOfTheHour - 30 * 60_000),
      now: topOfTheHour - 60_000,
      want: { missed: "none" },
    },
    {
      name: "now just after next schedule",
      cj: cj(topOfTheHour - 30 * 60_000),
      now: topOfTheHour + 60_000,
      want: { mostRecent: topOfTheHour, missed: "few" },
    },
    {
      name: "missed 5 schedules",
      cj: cj(topOfTheHour - 6 * H, topOfTheHour - 5 * H),
      now: topOfTheHour + 60_000,
      want: { mostRecent: topOfTheHour, missed: "few" },
    },
    {
      name: "complex schedule: rogue schedule never matches",
      schedule: "59 23 31 2 *",
      cj: cj(topOfTheHour - H),
      now: topOfTheHour + H,
      want: { missed: "none" },
    },
    {
      name: "many missed schedules (a week of hours)",
      cj: cj(topOfTheHour - 200 * H, topOfTheHour - 168 * H),
      now: topOfTheHour + 60_000,
      want: { mostRecent: topOfTheHour, missed: "many" },
    },
    {
      name: "with startingDeadlineSeconds: counted from the deadline",
      cj: cj(topOfTheHour - 200 * H, topOfTheHour - 168 * H, 2 * 3600),
      now: topOfTheHour + 60_000,
      deadline: true,
      want: { mostRecent: topOfTheHour, missed: "few" },
    },
    {
      name: "irregular schedule: Mondays and Wednesdays at 3",
      schedule: "0 3 * * 1,3",
      cj: cj(T("2016-05-01T00:00:00Z")),
      now: T("2016-05-19T10:00:00Z"),
      want: { mostRecent: T("2016-05-18T03:00:00Z"), missed: "few" },
    },
    {
      name: "@monthly from creation mid-month",
      schedule: "@monthly",
      cj: cj(T("2016-01-15T00:00:00Z")),
      now: T("2016-05-19T10:00:00Z"),
      want: { mostRecent: T("2016-05-01T00:00:00Z"), missed: "few" },
    },
  ];
  it.each(cases)("$name", ({ schedule, cj: c, now, deadline, want }) => {
    const r = mostRecentScheduleTime(c, now, parseSchedule(schedule ?? "0 * * * *"), deadline ?? false);
    expect({ mostRecent: r.mostRecent, missed: r.missed }).toEqual({ mostRecent: undefined, ...want });
  });

  it("TestNextScheduleTime: the most recent activation, the TooManyMissedTimes warning, the deadline", () => {
    let warned = 0;
    expect(nextScheduleTime(cj(topOfTheHour - 30 * 60_000), topOfTheHour - 60_000, hourly)).toBeUndefined();
    expect(nextScheduleTime(cj(topOfTheHour - 30 * 60_000), topOfTheHour + 1000, hourly)).toBe(topOfTheHour);
    expect(
      nextScheduleTime(cj(topOfTheHour - 200 * H, topOfTheHour - 168 * H), topOfTheHour + 1000, hourly, () => warned++),
    ).toBe(topOfTheHour);
    expect(warned).toBe(1);
    // Deadline 10 s: the activation 20 s ago is out of reach.
    expect(nextScheduleTime(cj(topOfTheHour - H, topOfTheHour - H, 10), topOfTheHour + 20_000, hourly)).toBeUndefined();
  });

  it("TestNextScheduleTimeDuration: until the next activation plus 100 ms", () => {
    expect(nextScheduleTimeDuration(cj(topOfTheHour - 30 * 60_000), topOfTheHour - 60_000, hourly)).toBe(60_000 + 100);
    expect(nextScheduleTimeDuration(cj(topOfTheHour - H, topOfTheHour), topOfTheHour + 1000, hourly)).toBe(
      H - 1000 + 100,
    );
  });

  it("property: the most recent activation is never after now and the next one is", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 1, max: 400 * H }), (minute, later) => {
        const s = parseSchedule(`${minute} * * * *`);
        const r = mostRecentScheduleTime(cj(topOfTheHour), topOfTheHour + later, s, false);
        if (r.mostRecent === undefined) return (s.next(topOfTheHour) ?? 0) > topOfTheHour + later;
        return r.mostRecent <= topOfTheHour + later && (s.next(r.mostRecent) ?? 0) > topOfTheHour + later;
      }),
    );
  });
});

describe("TestGetJobFromTemplate2 (pkg/controller/cronjob/utils_test.go)", () => {
  it("name, labels, annotations, scheduled timestamp and owner", () => {
    const c = {
      ...cj(topOfTheHour),
      spec: {
        schedule: "* * * * ?",
        jobTemplate: {
          metadata: { labels: { a: "b" }, annotations: { x: "y" } },
          spec: { template: { spec: { containers: [{ name: "c", image: "foo/bar" }] } } },
        },
      },
    } as unknown as CronJob;
    const j = getJobFromTemplate(c, topOfTheHour);
    expect(j.metadata?.name).toBe(`mycronjob-${getTimeHashInMinutes(topOfTheHour)}`);
    expect(getTimeHashInMinutes(topOfTheHour)).toBe(24394200);
    expect(j.metadata?.labels).toEqual({ a: "b" });
    expect(j.metadata?.annotations).toEqual({
      x: "y",
      "batch.kubernetes.io/cronjob-scheduled-timestamp": "2016-05-19T10:00:00Z",
    });
    expect(j.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "CronJob",
      name: "mycronjob",
      uid: "1a2b3c",
      controller: true,
    });
    expect(j.spec?.template.spec?.containers[0]?.image).toBe("foo/bar");
  });
});

describe("parseSchedule", () => {
  it.each([
    ["a six-field schedule", "0 * * * * *"],
    ["garbage", "not a schedule"],
    ["an out-of-range minute", "61 * * * *"],
    ["@every (robfig's extension, rejected by the API's validation)", "@every 1h"],
  ])("rejects %s, naming it", (_what, schedule) => {
    expect(() => parseSchedule(schedule)).toThrow(UnparseableScheduleError);
    expect(() => parseSchedule(schedule)).toThrow(`unparseable schedule ${JSON.stringify(schedule)}`);
  });

  it("descriptors, CRON_TZ and spec.timeZone", () => {
    expect(parseSchedule("@hourly").next(topOfTheHour)).toBe(topOfTheHour + H);
    expect(parseSchedule("@daily").next(topOfTheHour)).toBe(T("2016-05-20T00:00:00Z"));
    // 12:00 in Berlin (CEST) is 10:00Z: strictly after 10:00Z on the 19th comes the 20th.
    expect(parseSchedule("0 12 * * *", "Europe/Berlin").next(topOfTheHour)).toBe(T("2016-05-20T10:00:00Z"));
    expect(parseSchedule("0 12 * * *", "Europe/Berlin").next(topOfTheHour - 1000)).toBe(topOfTheHour);
    expect(parseSchedule("CRON_TZ=Asia/Tokyo 0 0 * * *").next(topOfTheHour)).toBe(T("2016-05-19T15:00:00Z"));
    expect(() => parseSchedule("TZ=UTC 0 * * * *", "UTC")).toThrow("may not be used with spec.timeZone");
  });
});
