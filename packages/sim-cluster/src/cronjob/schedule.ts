import { Cron } from "croner";

/**
 * A parsed cron schedule (robfig/cron's `Schedule`, as `cron.ParseStandard` reads it): five fields (minute, hour,
 * day of month, month, day of week) or a descriptor (`@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`), an
 * optional `CRON_TZ=<zone>`/`TZ=<zone>` prefix, evaluated in `timeZone` (default UTC).
 *
 * Parsing and the next activation come from croner (zero dependencies, a strict five-part mode, IANA zones, day of
 * month and day of week OR-ed as in Vixie cron and robfig/cron): a well-kept library, rather than a hand-written
 * field parser.
 */
export interface Schedule {
  /** The first activation strictly after `ms` (epoch ms), or undefined when there is none. */
  next(ms: number): number | undefined;
}

/** Why a schedule does not parse: the message names it (`unparseable schedule "…": …`). */
export class UnparseableScheduleError extends Error {
  override readonly name = "UnparseableScheduleError";
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/**
 * Parses `schedule` in `timeZone` (the CronJob's `spec.timeZone`; default UTC — kube-controller-manager's own zone,
 * here fixed so that runs are the same everywhere). Throws an {@link UnparseableScheduleError}.
 */
export function parseSchedule(schedule: string, timeZone?: string): Schedule {
  let text = schedule.trim();
  let zone = timeZone ?? "UTC";
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(text);
  if (tz !== null) {
    if (timeZone !== undefined) {
      throw new UnparseableScheduleError(
        `unparseable schedule ${JSON.stringify(schedule)}: CRON_TZ or TZ may not be used with spec.timeZone`,
      );
    }
    zone = tz[1]!;
    text = tz[2]!.trim();
  }
  if (text.startsWith("@every ")) {
    throw new UnparseableScheduleError(`unparseable schedule ${JSON.stringify(schedule)}: @every is not supported`);
  }
  const pattern = DESCRIPTORS[text] ?? text;
  let cron: Cron;
  try {
    cron = new Cron(pattern, { mode: "5-part", timezone: zone, paused: true });
  } catch (err) {
    throw new UnparseableScheduleError(
      `unparseable schedule ${JSON.stringify(schedule)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return {
    next(ms) {
      // robfig/cron rounds down to the second and returns an activation strictly after it.
      const d = cron.nextRun(new Date(Math.floor(ms / 1000) * 1000));
      return d === null ? undefined : d.getTime();
    },
  };
}
