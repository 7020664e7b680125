// A ListerWatcher whose client ingests objects at a bounded rate: the per-event processing cost of an informer's
// read path (decode, transform, store), paid on its clock.
import type { KubeList, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import type { ListerWatcher, Watch } from "@informer-ts/cache";
import type { Clock } from "@informer-ts/clock";

/** Options of {@link slowConsumer}. */
export interface SlowConsumerOptions {
  /** The clock the cost is paid on (a `FakeClock` for virtual time). */
  readonly clock: Clock;
  /** Objects the client ingests per second (list items and watch events alike); > 0. */
  readonly perSecond: number;
  /**
   * Events read between two pauses (default 10): the cost of a batch is paid at once, which keeps the number of
   * timers low; the rate is the same.
   */
  readonly batch?: number;
  /** Called with every watch event read (after its cost is paid), e.g. to count events. */
  readonly onEvent?: (event: WatchEvent<unknown>) => void;
  /** Called when a watch stream ends (the server closed it or it was stopped), with the events it delivered. */
  readonly onWatchEnd?: (events: number) => void;
}

/**
 * Wraps a {@link ListerWatcher} so that its consumer reads at most `perSecond` objects per second of `clock`: a LIST
 * answer is held for `items / perSecond` seconds before it is returned (the client decoding and storing it), and
 * a watch pauses `batch / perSecond` seconds every `batch` events before pulling the next one. Because watch
 * iteration is pull-based, the pause is back-pressure on the server: a simulated apiserver's watcher fills its
 * buffers and its dispatch budget closes it, as kube-apiserver closes a client that cannot keep up.
 *
 * In client-go the read path is what bounds this rate — the reflector decodes each event and adds it to the FIFO
 * under the lock the informer's processing holds — while handlers run on their listeners' unbounded buffers and
 * never slow the watch; the write-up 002 measured about 1,200 events/s for a watch that does nothing else.
 */
export function slowConsumer<T>(lw: ListerWatcher<T>, options: SlowConsumerOptions): ListerWatcher<T> {
  const { clock } = options;
  if (!(options.perSecond > 0) || !Number.isFinite(options.perSecond))
    throw new RangeError(`slowConsumer: perSecond must be a finite number > 0, got ${options.perSecond}`);
  const batch = options.batch ?? 10;
  if (!Number.isInteger(batch) || batch < 1)
    throw new RangeError(`slowConsumer: batch must be an integer ≥ 1, got ${batch}`);
  const msPer = 1000 / options.perSecond;
  return {
    ...(lw.watchListSemanticsUnsupported !== undefined && {
      watchListSemanticsUnsupported: lw.watchListSemanticsUnsupported,
    }),
    ...(lw.target !== undefined && { target: lw.target }),
    async list(opts: ListOptions, signal?: AbortSignal): Promise<KubeList<T>> {
      const list = await lw.list(opts, signal);
      const n = Array.isArray(list.items) ? list.items.length : 0;
      if (n > 0) await clock.sleep(n * msPer, signal);
      return list;
    },
    async watch(opts: ListOptions, signal?: AbortSignal): Promise<Watch<T>> {
      const inner = await lw.watch(opts, signal);
      return slowWatch(inner, clock, msPer, batch, options, signal);
    },
  };
}

function slowWatch<T>(
  inner: Watch<T>,
  clock: Clock,
  msPer: number,
  batch: number,
  options: SlowConsumerOptions,
  signal: AbortSignal | undefined,
): Watch<T> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal?.addEventListener("abort", abort, { once: true });
  let read = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener("abort", abort);
    options.onWatchEnd?.(read);
  };
  return {
    stop() {
      stop.abort();
      inner.stop();
    },
    [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
      const it = inner[Symbol.asyncIterator]();
      return {
        async next(): Promise<IteratorResult<WatchEvent<T>>> {
          if (read > 0 && read % batch === 0 && !stop.signal.aborted) {
            try {
              await clock.sleep(batch * msPer, stop.signal);
            } catch {
              // stopped while pausing: the next pull ends the stream
            }
          }
          try {
            const r = await it.next();
            if (r.done === true) end();
            else {
              read++;
              options.onEvent?.(r.value as WatchEvent<unknown>);
            }
            return r;
          } catch (err) {
            end();
            throw err;
          }
        },
        async return(): Promise<IteratorResult<WatchEvent<T>>> {
          end();
          stop.abort();
          return (await it.return?.()) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
