// Calibration constants of the simulator's models (request cost, APF seats, watch memory). Every number here is
// either kube-apiserver's own constant (named after it) or a figure measured by someone else, cited where it is
// defined. The models read them through their option objects, so a study can override any of them.

// ---- request cost ------------------------------------------------------------------------------------------------

/**
 * Fixed time and CPU of one request outside its storage read and encoding: the filter chain before API Priority and
 * Fairness admits it (authentication, audit, authorization, APF dispatch, routing).
 *
 * Source: the kube-apiserver httplog lines of background write-up 000 (v1.28, a kubelet's ConfigMap GET served by
 * etcd): `latency` 1.93 / 1.81 / 1.56 ms against `apf_execution_time` 1.27 / 1.18 / 0.93 ms, a difference of
 * 0.63–0.66 ms per request.
 */
export const REQUEST_OVERHEAD_MS = 0.64;

/**
 * Round trip of one read to etcd that is not apiserver CPU: the gRPC call and, for a consistent read, etcd's
 * ReadIndex (a quorum confirmation) before the range is served. Paid once per storage read; a paginated list pays it
 * once per page.
 *
 * Source: write-up 000 again: the handler's whole execution of a one-key etcd GET (`apf_execution_time`) is
 * 0.93–1.27 ms, of which the per-key and encoding terms below account for about 0.03 ms.
 */
export const STORAGE_ROUND_TRIP_MS = 1.05;

/**
 * apiserver CPU per key read from etcd (range response decoding, value transformation, conversion, filtering).
 *
 * Source: `BenchmarkStore_GetList` of kubernetes#116374 (the etcd3 store's GetList on core/v1 Pods): 100 pods 2.6 ms,
 * 1,000 pods 24 ms, 10,000 pods 235–250 ms, 50,000 pods 1.2 s, i.e. about 24 µs per small Pod. The model splits that
 * into a per-key half (this constant) and a per-byte half ({@link STORAGE_MS_PER_KIB}) assuming the benchmark's Pods
 * are about 1 KiB encoded; the split is ours, the total is the benchmark's.
 */
export const STORAGE_MS_PER_KEY = 0.012;

/** apiserver CPU per KiB of values read from etcd; see {@link STORAGE_MS_PER_KEY} for the source and the split. */
export const STORAGE_MS_PER_KIB = 0.012;

/**
 * apiserver CPU per object the watch cache walks to answer a read (btree iteration and the selector filter; objects
 * are shared, not copied).
 *
 * Source: kubernetes#140896 (streaming watch-cache list results), 1M pods served from the watch cache: chunked full
 * LISTs walking 54M cache objects/s used 20.2 cores, chunked LISTs with a label selector walking 37M objects/s used
 * 13.8 cores — 0.37 µs per object walked in both cases.
 */
export const CACHE_MS_PER_OBJECT = 0.00037;

/**
 * apiserver CPU per KiB of JSON written to the client (the streaming list encoder, the HTTP response writer).
 *
 * Source: kubernetes#141809 and #141586 (`BenchmarkSerializeObject`): 100 Pods as JSON, uncompressed, over
 * HTTP/1.1: 6.05 ms for 1,444,826 bytes written, 60.3 ms for 1,000 Pods — 0.0043 ms per KiB.
 */
export const ENCODE_MS_PER_KIB = 0.0043;

/**
 * Time an etcd write (a transaction through raft: leader append, WAL fsync on a quorum, apply) adds to a mutating
 * request beyond the read round trip. Not apiserver CPU.
 *
 * Source: etcd's operations guide asks for WAL fsync p99 below 10 ms and a healthy cluster's
 * `etcd_disk_wal_fsync_duration_seconds` sits at 1–2 ms on SSDs; the model takes 2 ms as the typical commit. This is an
 * assumption of the model, not a measurement.
 */
export const STORAGE_WRITE_COMMIT_MS = 2;

// ---- API Priority and Fairness work estimation (k8s.io/apiserver/pkg/util/flowcontrol/request) ----------------------

/** `minimumSeats`: every request occupies at least one seat. */
export const APF_MINIMUM_SEATS = 1;

/** `objectsPerSeat`: the count-based list estimator gives one seat per 100 objects processed. */
export const APF_OBJECTS_PER_SEAT = 100;

/** `bytesPerSeat`: the size-based list estimator (`SizeBasedListCostEstimate`) gives one seat per 100 KB in memory. */
export const APF_BYTES_PER_SEAT = 100_000;

/** `cacheWithStreamingMaxMemoryUsage`: a list served from the watch cache is counted as at most 1 MB at once. */
export const APF_CACHE_STREAMING_MAX_BYTES = 1_000_000;

/** `maxObjectSize` (etcd's 1.5 MB request limit): the object size assumed when the average size is unknown. */
export const APF_MAX_OBJECT_SIZE = 1_500_000;

/**
 * Cap of a list request's seats: 100 with `SizeBasedListCostEstimate` (beta and on by default from v1.34), 10 before
 * (`maximumSeats`). Source: `config.go` and `kube_features.go` of k8s.io/apiserver.
 */
export const APF_MAX_LIST_SEATS_SIZE_BASED = 100;
export const APF_MAX_LIST_SEATS_COUNT_BASED = 10;

/** Cap of a mutating request's final seats (`maximumSeats` for mutating requests). */
export const APF_MAX_MUTATING_SEATS = 10;

/** `watchesPerSeat`: a write's final phase takes one seat per 10 interested watchers. */
export const APF_WATCHES_PER_SEAT = 10;

/** `eventAdditionalDuration`: how long those final seats are held after the write (5 ms). */
export const APF_EVENT_ADDITIONAL_DURATION_MS = 5;

// ---- kube-apiserver memory per watch ---------------------------------------------------------------------------------

/**
 * Bytes of one slot of a `cacheWatcher`'s `input` channel (`chan *watchCacheEvent`: a pointer).
 */
export const WATCH_INPUT_SLOT_BYTES = 8;

/** Bytes of one slot of a `cacheWatcher`'s `result` channel (`chan watch.Event`: a type string and an interface). */
export const WATCH_RESULT_SLOT_BYTES = 32;

/**
 * Memory one open watch holds in kube-apiserver besides its channel slots and the events buffered in them: the
 * cacheWatcher goroutine and the handler goroutine that serves the stream (their stacks), the HTTP/2 stream and its
 * response writer buffer, the watch encoder and framer, the request context, timers and filters.
 *
 * Source, calibrated so that an idle single-object watch comes to 100,000 bytes: background write-up 001 (Tencent
 * Cloud, a 16-core 32 GB apiserver) measured about 20 GB for 200,000 ConfigMap watches, "about 100 KB per watch";
 * kubernetes#117777 ("Implement watch limit in APF") puts the overhead of a watch at 50–100 KiB. Such a watch selects
 * on `metadata.name`, the ConfigMap trigger, so its channels hold 10 slots each (see {@link suggestedWatchChannelSize}
 * in watch-memory-model.ts): 100,000 − 10 × (8 + 32) = 99,600.
 */
export const WATCH_FIXED_OVERHEAD_BYTES = 99_600;

/** `minWatchChanSize`: the smallest channel a watcher gets. */
export const MIN_WATCH_CHAN_SIZE = 10;
/** `maxWatchChanSizeWithIndexAndTrigger`: a watch that selects on the resource's trigger field. */
export const MAX_WATCH_CHAN_SIZE_WITH_INDEX_AND_TRIGGER = 10;
/** `maxWatchChanSizeWithIndexWithoutTrigger`: a resource with a trigger, a watch that does not use it. */
export const MAX_WATCH_CHAN_SIZE_WITH_INDEX_WITHOUT_TRIGGER = 1000;
/** `maxWatchChanSizeWithoutIndex`: a resource without a trigger. */
export const MAX_WATCH_CHAN_SIZE_WITHOUT_INDEX = 100;

// ---- trace log -----------------------------------------------------------------------------------------------------

/** The threshold kube-apiserver's handlers pass to `LogIfLong` (`getTraceLogThreshold`, 500 ms). */
export const TRACE_LOG_THRESHOLD_MS = 500;
