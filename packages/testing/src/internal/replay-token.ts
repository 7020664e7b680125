/**
 * A replay token names one generated case of one property: the property's name, the fast-check seed of its run and
 * the fast-check path of the case (the run index, then the shrink steps), as `<property>/<seed>/<path>` — e.g.
 * `checkController/9/36:2:0`. The runners print it with a failure; `FC_REPLAY=<token>` (or a `run…Case(options,
 * token)`) regenerates exactly that case and runs it alone, without searching or shrinking.
 */
export interface ReplayToken {
  readonly property: string;
  readonly seed: number;
  readonly path: string;
}

const TOKEN = /^([^/\s]+)\/(-?\d+)\/(\d+(?::\d+)*)$/;

/** The token's text. */
export function formatReplayToken(t: ReplayToken): string {
  return `${t.property}/${t.seed}/${t.path}`;
}

/** Parses a token; throws an `Error` naming the text and the expected form when it is not one. */
export function parseReplayToken(text: string): ReplayToken {
  const m = TOKEN.exec(text.trim());
  if (m === null) {
    throw new Error(
      `not a replay token: ${JSON.stringify(text)} (expected <property>/<seed>/<path>, e.g. checkController/9/36:2:0, as a failure prints it)`,
    );
  }
  return { property: m[1]!, seed: Number(m[2]), path: m[3]! };
}

/** Throws a `RangeError` naming a property name that cannot be part of a token (empty, a `/` or whitespace). */
export function checkPropertyName(name: string): void {
  if (typeof name !== "string" || !/^[^/\s]+$/.test(name)) {
    throw new RangeError(`property name ${JSON.stringify(name)} cannot name a replay token: no "/" or whitespace`);
  }
}

/**
 * `FC_REPLAY` from the environment when it names `property` (a token of another property is ignored, so one replay
 * touches one property); a malformed `FC_REPLAY` is an error naming it.
 */
export function replayFromEnv(property: string): ReplayToken | undefined {
  const raw = typeof process !== "undefined" ? process.env.FC_REPLAY : undefined;
  if (raw === undefined || raw.trim() === "") return undefined;
  const token = parseReplayToken(raw);
  return token.property === property ? token : undefined;
}
