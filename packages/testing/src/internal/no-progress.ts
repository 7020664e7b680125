import type { Clock } from "@informer-ts/clock";

/** Watches a quiet phase's progress, for {@link noProgressWatch}. */
export interface NoProgressWatch {
  /**
   * Takes the current state's fingerprint (a change is progress) and says whether the case cannot converge any more:
   * nothing changed for the window. Logs the give-up once, as a `phase` line.
   */
  stalled(fingerprint: string): boolean;
  /** Stops the wake timer. */
  stop(): void;
}

/**
 * The quiet phase's early give-up for the subject runners (`checkInformer`, `checkSubject`): once the fingerprint of
 * the server's and the subject's state has not changed for `windowMs` of virtual time after the faults were cleared,
 * the case cannot converge any more (every paused watch resumed, every reflector backoff is shorter), so waiting out
 * `convergeWithinMs` would only add watch renewals to the story.
 *
 * One more thing can unblock a reflector without any change: the storage's periodic compaction. A reflector with an
 * explicit page size relists at its last resourceVersion with a `limit` (served exactly, from storage: the old state)
 * and re-watches from there, which a re-initialized watch cache answers with 410 — client-go's loop too, broken only
 * once that resourceVersion is compacted (the list then gets 410 and the reflector relists from ""). So the window
 * counts from when the storage's compaction has covered the revision of the last change (at once when it already
 * had; the simulator compacts every 5 virtual minutes, up to the revision of the check before, like the apiserver).
 * A timer on the cluster's clock wakes the settle loop when the window ends, so the give-up is on time even when
 * nothing else is scheduled before the next renewal.
 */
export function noProgressWatch(
  clock: Clock,
  windowMs: number,
  /** Virtual ms since the case started, as the timeline prints them. */
  caseMs: (t: number) => number,
  /** Adds a `phase` line to the case's timeline. */
  logPhase: (text: string) => void,
  /** The storage's revision and compacted revision (see the note on compaction above). */
  revisions: () => { readonly current: number; readonly compacted: number },
): NoProgressWatch {
  let last: string | undefined;
  let lastChangeAt = clock.now();
  /** The storage's revision at the last change: once compacted up to it, no stale resourceVersion is served. */
  let revisionAtChange = revisions().current;
  /** When the window starts: once the compaction covered `revisionAtChange` (undefined until then). */
  let windowFrom: number | undefined;
  let gaveUp = false;
  let wake: { stop(): void } | undefined;
  const arm = () => {
    wake?.stop();
    // Without a window yet (a compaction is awaited) the compaction's own timer wakes the settle loop.
    if (windowFrom === undefined) return;
    wake = clock.afterFunc(Math.max(windowFrom + windowMs - clock.now(), 1), () => {
      wake = undefined;
      if (!gaveUp) arm();
    });
  };
  arm();
  return {
    stalled(fingerprint) {
      if (gaveUp) return true;
      const now = clock.now();
      const r = revisions();
      if (fingerprint !== last) {
        last = fingerprint;
        lastChangeAt = now;
        revisionAtChange = r.current;
        windowFrom = r.compacted >= revisionAtChange ? now : undefined;
        arm();
        return false;
      }
      if (windowFrom === undefined) {
        if (r.compacted < revisionAtChange) return false;
        windowFrom = now;
        arm();
        return false;
      }
      if (now - windowFrom < windowMs) return false;
      gaveUp = true;
      wake?.stop();
      wake = undefined;
      logPhase(
        `the case cannot converge: neither the server's state nor the subject's changed since @${caseMs(lastChangeAt)}${windowFrom > lastChangeAt ? ` nor after the compaction that covered it at @${caseMs(windowFrom)}` : ""} (noProgressWithinMs ${windowMs}); the quiet phase ends`,
      );
      return true;
    },
    stop() {
      wake?.stop();
      wake = undefined;
    },
  };
}
