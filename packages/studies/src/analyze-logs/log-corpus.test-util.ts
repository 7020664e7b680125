// Real kube-apiserver log lines, as quoted in upstream issues and pull requests (and write-up 000), each case with
// its source link and the classification `informer analyze-logs` must give every request it holds. Lines are
// verbatim except where `normalized` says what was changed (a paste's bullet, a retyped screenshot).

/** What one request of a case must be read as. */
export interface CorpusRequest {
  readonly verb: string;
  readonly resource: string;
  /** `served-from` column as printed: `storage`, `cache (inferred)`, `?`, `—`. */
  readonly servedFrom: string;
  /** Latency in ms as logged (a watch's is its lifetime, or its set-up time when logged at start). */
  readonly latencyMs?: number;
  /** User agent product/version. */
  readonly userAgent: string;
  /** Counted as an error (status ≥ 400). */
  readonly error: boolean;
  readonly code?: number;
  /** Priority level and flow schema, where the line has APF fields. */
  readonly apf?: readonly [string, string];
}

/** A trace a case must yield. */
export interface CorpusTrace {
  readonly name: string;
  readonly totalMs: number;
  readonly complete: boolean;
  readonly endLogged: boolean;
  readonly servedFrom?: "storage" | "cache";
  readonly steps: number;
}

/** One quotation: its lines, where they come from, and what they must be read as. */
export interface CorpusCase {
  readonly source: string;
  /** The kube-apiserver release that wrote the lines, as the source says (for `--kube-version`). */
  readonly kubeVersion?: string;
  /** What the quotation shows. */
  readonly shows: string;
  /** What was changed from the quoted text, if anything. */
  readonly normalized?: string;
  readonly lines: readonly string[];
  readonly requests: readonly CorpusRequest[];
  readonly traces?: readonly CorpusTrace[];
  /** Lines of a known log but no request or trace (other klog messages). */
  readonly otherLines?: number;
  /** Audit events at a non-final stage. */
  readonly skippedAuditStages?: number;
}

export const LOG_CORPUS: readonly CorpusCase[] = [
  {
    source: "https://github.com/kubernetes/kubernetes/issues/125614",
    kubeVersion: "1.30",
    shows: "1.30 logs a watch when it starts: resp=0, latency is the set-up time; not an error",
    lines: [
      `I0620 12:33:17.389016      11 httplog.go:132] "HTTP" verb="WATCH" URI="/api/v1/pods?allowWatchBookmarks=true&fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed&resourceVersion=97186&timeout=9m12s&timeoutSeconds=552&watch=true" latency="470.891µs" userAgent="kube-scheduler/v1.30.2 (linux/amd64) kubernetes/85fad5b/scheduler" audit-ID="2cf3b6d8-8c04-4065-8bb8-ccd209f24063" srcIP="[::1]:60566" apf_pl="workload-high" apf_fs="kube-scheduler" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_init_latency="252.569µs" apf_execution_time="253.277µs" resp=0`,
      `I0620 12:42:29.390797      11 get.go:261] "Starting watch" path="/api/v1/pods" resourceVersion="135790" labels="" fields="status.phase!=Failed,status.phase!=Succeeded" timeout="6m10s"`,
    ],
    requests: [
      {
        verb: "watch",
        resource: "pods",
        servedFrom: "cache (inferred)",
        latencyMs: 0.470891,
        userAgent: "kube-scheduler/v1.30.2",
        error: false,
        apf: ["workload-high", "kube-scheduler"],
      },
    ],
    otherLines: 1,
  },
  {
    source: "https://github.com/kubernetes/kubernetes/pull/106085 (comment by MikeSpreitzer, 2021-11-25)",
    kubeVersion: "1.23",
    shows: "a kubelet's single-object watch logged as verb GET (watch=true in the query) is a watch, not a 389 s GET",
    lines: [
      `I1123 18:26:33.911687      11 httplog.go:129] "HTTP" verb="WATCH" URI="/apis/node.k8s.io/v1/runtimeclasses?allowWatchBookmarks=true&resourceVersion=8905169&timeout=5m37s&timeoutSeconds=337&watch=true" latency="5m37.018673607s" userAgent="Go-http-client/2.0" audit-ID="12412bda-a412-4960-842e-177e0317ddaf" srcIP="34.139.96.103:57796" apf_pl="system" apf_fs="system-nodes" apf_fd="kubelet" apf_init_latency="318.278µs" resp=200`,
      `I1123 18:27:48.725023      11 httplog.go:129] "HTTP" verb="GET" URI="/api/v1/namespaces/kube-system/configmaps?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dkube-root-ca.crt&resourceVersion=8920697&timeout=6m29s&timeoutSeconds=389&watch=true" latency="6m29.074628069s" userAgent="Go-http-client/2.0" audit-ID="bb821a9f-5fe9-4e0f-b235-b8e7e7fc2f02" srcIP="34.139.96.103:57796" apf_pl="system" apf_fs="system-nodes" apf_fd="kubelet" apf_init_latency="8.316568ms" resp=200`,
    ],
    requests: [
      {
        verb: "watch",
        resource: "runtimeclasses.node.k8s.io",
        servedFrom: "cache (inferred)",
        latencyMs: 337_018.673607,
        userAgent: "Go-http-client/2.0",
        error: false,
        code: 200,
        apf: ["system", "system-nodes"],
      },
      {
        verb: "watch",
        resource: "configmaps",
        servedFrom: "cache (inferred)",
        latencyMs: 389_074.628069,
        userAgent: "Go-http-client/2.0",
        error: false,
        code: 200,
        apf: ["system", "system-nodes"],
      },
    ],
  },
  {
    source: "https://github.com/kubernetes/kubernetes/issues/130373",
    shows: "a watch on a legacy /watch/ path logged as verb LIST is a watch, not a 3,204 s list",
    normalized:
      'retyped from a screenshot in the issue: the quote before URI was a curly “, "Iatency" was latency, "O" was 0, "ps" was µs, the URI lacked its leading /, "HTTP" lacked its quotes and the line was broken before srcIP; restored to httplog\'s form (no klog header, as quoted)',
    lines: [
      `"HTTP" verb="LIST" URI="/api/v1/watch/namespaces?resourceVersion=4550966175" latency="53m24.474837559s" userAgent="<>" audit-ID="<>" srcIP="<>" apf_pl="workload-low" apf_fs="service-accounts" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_init_latency="400.617µs" apf_execution_time="402.837µs" resp=200`,
      `"HTTP" verb="WATCH" URI="/api/v1/pods?watch=true" latency="8m18.00060226s" userAgent="<>" audit-ID="<>" srcIP="<>" apf_pl="workload-high" apf_fs="kube-scheduler" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_init_latency="280.462µs" apf_execution_time="281.612µs" resp=200`,
    ],
    requests: [
      {
        verb: "watch",
        resource: "namespaces",
        servedFrom: "cache (inferred)",
        latencyMs: 3_204_474.837559,
        userAgent: "<>",
        error: false,
        code: 200,
        apf: ["workload-low", "service-accounts"],
      },
      {
        verb: "watch",
        resource: "pods",
        servedFrom: "cache (inferred)",
        latencyMs: 498_000.60226,
        userAgent: "<>",
        error: false,
        code: 200,
        apf: ["workload-high", "kube-scheduler"],
      },
    ],
  },
  {
    source: "https://github.com/kubernetes/kubernetes/issues/130410",
    kubeVersion: "1.32",
    shows: "a watch of an aggregated API (projectcalico.org): not served by kube-apiserver's cache, so not inferred",
    lines: [
      `I0407 13:34:32.754641       1 httplog.go:134] "HTTP" verb="WATCH" URI="/apis/projectcalico.org/v3/profiles?resourceVersion=28901%2F28901&watch=true" latency="9.081710917s" userAgent="kubectl/v1.32.3 (linux/amd64) kubernetes/32cc146" audit-ID="f4c1a7e4-6753-419b-85a9-a8ba30ec9d81" srcIP="192.166.208.12:58557" apf_pl="global-default" apf_fs="global-default" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_init_latency="551.565µs" apf_execution_time="553.651µs" resp=200`,
      `E0407 13:34:32.754776       1 wrap.go:53] "Timeout or abort while handling" logger="UnhandledError" method="GET" URI="/apis/projectcalico.org/v3/profiles?resourceVersion=28901%2F28901&watch=true" auditID="f4c1a7e4-6753-419b-85a9-a8ba30ec9d81"`,
    ],
    requests: [
      {
        verb: "watch",
        resource: "profiles.projectcalico.org",
        servedFrom: "?",
        latencyMs: 9081.710917,
        userAgent: "kubectl/v1.32.3",
        error: false,
        code: 200,
        apf: ["global-default", "global-default"],
      },
    ],
    otherLines: 1,
  },
  {
    source: "https://github.com/spidernet-io/spiderpool/pull/4089",
    kubeVersion: "1.31",
    shows: "discovery GETs of non-resource URLs (/api, /apis) with APF execution times",
    lines: [
      `I0923 11:07:57.876446       1 httplog.go:134] "HTTP" verb="GET" URI="/api" latency="1.534883ms" userAgent="kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/9edcffc/system:serviceaccount:kube-system:generic-garbage-collector" audit-ID="10d2876d-1c4e-4bad-b7f5-b16cb5e35847" srcIP="172.18.0.3:44714" apf_pl="workload-high" apf_fs="kube-system-service-accounts" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="646.149µs" resp=200`,
      `I0923 11:07:57.879639       1 httplog.go:134] "HTTP" verb="GET" URI="/apis" latency="1.281986ms" userAgent="kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/9edcffc/system:serviceaccount:kube-system:generic-garbage-collector" audit-ID="b9da6911-6445-4bef-8bbe-03faaca5333f" srcIP="172.18.0.3:44714" apf_pl="workload-high" apf_fs="kube-system-service-accounts" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="851.935µs" resp=200`,
    ],
    requests: [
      {
        verb: "get",
        resource: "/api",
        servedFrom: "—",
        latencyMs: 1.534883,
        userAgent: "kube-controller-manager/v1.31.0",
        error: false,
        code: 200,
        apf: ["workload-high", "kube-system-service-accounts"],
      },
      {
        verb: "get",
        resource: "/apis",
        servedFrom: "—",
        latencyMs: 1.281986,
        userAgent: "kube-controller-manager/v1.31.0",
        error: false,
        code: 200,
        apf: ["workload-high", "kube-system-service-accounts"],
      },
    ],
  },
  {
    source: "https://github.com/k3s-io/k3s/issues/2278",
    kubeVersion: "1.18",
    shows:
      "the 1.18–1.19 httplog form (httplog.go:90, verb=HTTP method, bare latency, UserAgent, trailing ':') behind syslog",
    lines: [
      `Sep 23 20:01:07 pi04 k3s[2957]: I0923 20:01:07.329494    2957 httplog.go:90] verb="GET" URI="/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cloud-controller-manager" latency=19.205301ms resp=200 UserAgent="k3s/v1.18.8+k3s1 (linux/arm) kubernetes/6b59531/leader-election" srcIP="127.0.0.1:50946":`,
      `Sep 23 20:01:07 pi04 k3s[2957]: I0923 20:01:07.363564    2957 configmap.go:188] Setting up volume values for pod c4f4af74-ec2a-4ef8-a44d-34cfcaec7f0f at /var/lib/kubelet/pods/c4f4af74-ec2a-4ef8-a44d-34cfcaec7f0f/volumes/kubernetes.io~configmap/values`,
      `Sep 23 20:01:07 pi04 k3s[2957]: I0923 20:01:07.363664    2957 configmap.go:212] Received configMap kube-system/chart-values-traefik containing (1) pieces of data, 340 total bytes`,
    ],
    requests: [
      {
        verb: "get",
        resource: "leases.coordination.k8s.io",
        servedFrom: "storage (inferred)",
        latencyMs: 19.205301,
        userAgent: "k3s/v1.18.8+k3s1",
        error: false,
        code: 200,
      },
    ],
    otherLines: 2,
  },
  {
    source: "https://github.com/kubernetes/kubernetes/issues/43753",
    shows: "the httplog form before 1.18 (`GET /api/…: (2ms) 200 [[ua] addr]`, here panics.go of 1.5) behind syslog",
    lines: [
      "Mar 28 13:23:04 dev-master-003 kube-apiserver: I0328 15:23:04.618962   15002 panics.go:76] GET /api/v1/namespaces/kube-system/endpoints/kube-scheduler: (2.064601ms) 200 [[kube-scheduler/v1.5.5 (linux/amd64) kubernetes/894ff23/leader-election] 127.0.0.1:57902]",
      "Mar 28 13:23:04 dev-master-003 kube-apiserver: I0328 15:23:04.626514   15002 panics.go:76] PUT /api/v1/namespaces/kube-system/endpoints/kube-scheduler: (6.4732ms) 200 [[kube-scheduler/v1.5.5 (linux/amd64) kubernetes/894ff23/leader-election] 127.0.0.1:57902]",
      "Mar 28 13:23:04 dev-master-003 kube-apiserver: I0328 15:23:04.811400   15002 panics.go:76] GET /api/v1/namespaces/default/services/kubernetes: (1.789391ms) 200 [[kube-apiserver/v1.5.5 (linux/amd64) kubernetes/894ff23] 127.0.0.1:57676]",
    ],
    requests: [
      {
        verb: "get",
        resource: "endpoints",
        servedFrom: "storage (inferred)",
        latencyMs: 2.064601,
        userAgent: "kube-scheduler/v1.5.5",
        error: false,
        code: 200,
      },
      {
        verb: "update",
        resource: "endpoints",
        servedFrom: "—",
        latencyMs: 6.4732,
        userAgent: "kube-scheduler/v1.5.5",
        error: false,
        code: 200,
      },
      {
        verb: "get",
        resource: "services",
        servedFrom: "storage (inferred)",
        latencyMs: 1.789391,
        userAgent: "kube-apiserver/v1.5.5",
        error: false,
        code: 200,
      },
    ],
  },
  {
    source: "https://github.com/kubernetes/kubernetes/issues/59049",
    shows: "the pre-1.18 form from wrap.go: POSTs answered 409 are creates and errors",
    lines: [
      "I0130 14:39:08.768922       7 wrap.go:42] POST /apis/rbac.authorization.k8s.io/v1beta1/clusterrolebindings: (6.348872ms) 409 [[protokube/v1.8.1 (linux/amd64) kubernetes/$Format] 127.0.0.1:45574]",
      "I0130 14:40:09.463910       7 wrap.go:42] POST /api/v1/namespaces/kube-system/serviceaccounts: (6.954807ms) 409 [[protokube/v1.8.1 (linux/amd64) kubernetes/$Format] 127.0.0.1:45574]",
    ],
    requests: [
      {
        verb: "create",
        resource: "clusterrolebindings.rbac.authorization.k8s.io",
        servedFrom: "—",
        latencyMs: 6.348872,
        userAgent: "protokube/v1.8.1",
        error: true,
        code: 409,
      },
      {
        verb: "create",
        resource: "serviceaccounts",
        servedFrom: "—",
        latencyMs: 6.954807,
        userAgent: "protokube/v1.8.1",
        error: true,
        code: 409,
      },
    ],
  },
  {
    source: "https://github.com/kubermatic/dashboard/issues/200",
    shows: "`kubectl logs --timestamps` output: a collection GET is a list; non-resource URLs; other klog lines",
    lines: [
      "2017-09-22T12:30:56.641355902Z I0922 12:30:56.641161       1 wrap.go:75] GET /metrics: (12.42593ms) 200 [[Prometheus/1.7.1] 10.80.53.99:46360]",
      "2017-09-22T12:30:57.107112997Z I0922 12:30:57.106917       1 wrap.go:75] GET /apis/extensions/v1beta1/thirdpartyresources: (1.886334ms) 200 [[hyperkube/v1.6.9 (linux/amd64) kubernetes/79097ec] [::1]:39234]",
      "2017-09-22T12:30:59.590318607Z I0922 12:30:59.589988       1 wrap.go:75] GET /healthz: (73.813µs) 200 [[Go-http-client/1.1] 10.80.55.1:60486]",
      "2017-09-22T12:31:05.27498918Z I0922 12:31:05.274640       1 wrap.go:75] GET /api/v1/nodes: (2.728185ms) 200 [[hyperkube/v1.6.9 (linux/amd64) kubernetes/79097ec] [::1]:39234]",
      "2017-09-22T12:31:05.275034535Z I0922 12:31:05.274802       1 ssh.go:193] Calling update w/ addrs: []",
      "2017-09-22T12:31:05.275070634Z E0922 12:31:05.274809       1 ssh.go:195] Failed to getAddresses: no preferred addresses found; known addresses: []",
    ],
    requests: [
      {
        verb: "get",
        resource: "/metrics",
        servedFrom: "—",
        latencyMs: 12.42593,
        userAgent: "Prometheus/1.7.1",
        error: false,
        code: 200,
      },
      {
        verb: "list",
        resource: "thirdpartyresources.extensions",
        servedFrom: "?",
        latencyMs: 1.886334,
        userAgent: "hyperkube/v1.6.9",
        error: false,
        code: 200,
      },
      {
        verb: "get",
        resource: "/healthz",
        servedFrom: "—",
        latencyMs: 0.073813,
        userAgent: "Go-http-client/1.1",
        error: false,
        code: 200,
      },
      {
        verb: "list",
        resource: "nodes",
        servedFrom: "?",
        latencyMs: 2.728185,
        userAgent: "hyperkube/v1.6.9",
        error: false,
        code: 200,
      },
    ],
    otherLines: 2,
  },
  {
    source: "shared/background/000 (its kube-apiserver 1.28 log, CRI-wrapped)",
    kubeVersion: "1.28",
    shows: "write-up 000's evidence: one kubelet GETs one ConfigMap from etcd (RV unset) every 65–75 s",
    lines: [
      `2023-08-23T08:55:54.331196195Z stderr F I0823 08:55:54.330840       1 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/nginx-cfgmap" latency="1.926865ms" userAgent="kubelet/v1.28.0 (linux/amd64) kubernetes/855e7c4" audit-ID="36cfcbe3-d76a-4a4d-b251-47cc2df060cb" srcIP="192.168.228.2:59052" apf_pl="system" apf_fs="system-nodes" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="1.269527ms" resp=200`,
      `2023-08-23T08:57:09.333913507Z stderr F I0823 08:57:09.333470       1 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/nginx-cfgmap" latency="1.810334ms" userAgent="kubelet/v1.28.0 (linux/amd64) kubernetes/855e7c4" audit-ID="563bd337-df29-4342-afd0-9ca6e0632f0f" srcIP="192.168.228.2:59052" apf_pl="system" apf_fs="system-nodes" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="1.177012ms" resp=200`,
      `2023-08-23T08:58:14.338971779Z stderr F I0823 08:58:14.338630       1 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/nginx-cfgmap" latency="1.563356ms" userAgent="kubelet/v1.28.0 (linux/amd64) kubernetes/855e7c4" audit-ID="45350dc7-7a4b-43f1-8972-3b8053578234" srcIP="192.168.228.2:59052" apf_pl="system" apf_fs="system-nodes" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="929.214µs" resp=200`,
    ],
    requests: [1.926865, 1.810334, 1.563356].map((latencyMs) => ({
      verb: "get",
      resource: "configmaps",
      servedFrom: "storage (inferred)",
      latencyMs,
      userAgent: "kubelet/v1.28.0",
      error: false,
      code: 200,
      apf: ["system", "system-nodes"] as const,
    })),
  },
  {
    source: "https://github.com/loft-sh/vcluster/issues/145",
    shows: 'top-level "List etcd3" traces (second trace format, END always written) are storage reads',
    lines: [
      `I1011 17:55:48.299406       1 trace.go:205] Trace[1104010957]: "List etcd3" key:/endpointslices,resourceVersion:,resourceVersionMatch:,limit:10000,continue: (11-Oct-2021 17:55:47.574) (total time: 724ms):`,
      "Trace[1104010957]: [724.326703ms] [724.326703ms] END",
      `I1011 17:55:48.309062       1 trace.go:205] Trace[381194779]: "List etcd3" key:/ingress,resourceVersion:,resourceVersionMatch:,limit:10000,continue: (11-Oct-2021 17:55:47.574) (total time: 734ms):`,
      "Trace[381194779]: [734.357967ms] [734.357967ms] END",
    ],
    requests: [],
    traces: [
      { name: "List etcd3", totalMs: 724, complete: true, endLogged: true, servedFrom: "storage", steps: 0 },
      { name: "List etcd3", totalMs: 734, complete: true, endLogged: true, servedFrom: "storage", steps: 0 },
    ],
  },
  {
    source: "https://github.com/kubernetes/website/issues/20364",
    kubeVersion: "1.18",
    shows: "a first-format trace (`(started: …)`, Go durations) of an etcd3 update",
    normalized: 'each line had the "* " bullet of `minikube logs` before it; removed',
    lines: [
      `I0415 21:16:09.919773       1 trace.go:116] Trace[1200151747]: "GuaranteedUpdate etcd3" type:*discovery.EndpointSlice (started: 2020-04-15 21:16:09.26744765 +0000 UTC m=+37.629717194) (total time: 652.308678ms):`,
      "Trace[1200151747]: [652.308678ms] [652.291078ms] END",
    ],
    requests: [],
    traces: [
      {
        name: "GuaranteedUpdate etcd3",
        totalMs: 652.308678,
        complete: true,
        endLogged: true,
        servedFrom: "storage",
        steps: 0,
      },
    ],
  },
  {
    source: "https://github.com/kubernetes/kubernetes/pull/137181",
    shows: "a current-format trace with --- steps and END",
    lines: [
      `I0221 14:30:59.185235 2474320 trace.go:252] Trace[263339281]: "SerializeObject" audit-id:,method:GET,url:/api/v1/pods,protocol:HTTP/1.1,mediaType:application/json,encoder:{"name":"json","pretty":"false","strict":"false","yaml":"false"} (21-Feb-2026 14:30:58.779) (total time: 405ms):`,
      `Trace[263339281]: ---"Write call succeeded" size:42565835 405ms (14:30:59.185)`,
      `Trace[263339281]: ---"Encoding" size:42565835,count:1 72ms (14:30:59.185)`,
      `Trace[263339281]: ---"Network" size:1977475,count:8243 0ms (14:30:59.185)`,
      `Trace[263339281]: ---"gzip" size:42565835,count:1 72ms (14:30:59.185)`,
      "Trace[263339281]: [405.873031ms] [405.873031ms] END",
    ],
    requests: [],
    traces: [{ name: "SerializeObject", totalMs: 405, complete: true, endLogged: true, steps: 4 }],
  },
  {
    source: "https://github.com/k0rdent/kof/issues/980",
    kubeVersion: "1.33",
    shows: "a pretty-printed audit event (as pasted), ResponseComplete of a 577 s watch",
    lines: `{
  "kind": "Event",
  "apiVersion": "audit.k8s.io/v1",
  "level": "Metadata",
  "auditID": "6a0325cf-e2d0-4e45-9ad3-51f43a01cca0",
  "stage": "ResponseComplete",
  "requestURI": "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?allowWatchBookmarks=true&resourceVersion=5593&timeout=9m37s&timeoutSeconds=577&watch=true",
  "verb": "watch",
  "user": {
    "username": "system:apiserver",
    "uid": "24dba136-6715-4240-930a-44af5f078b36",
    "groups": [
      "system:authenticated",
      "system:masters"
    ]
  },
  "sourceIPs": [
    "::1"
  ],
  "userAgent": "kube-apiserver/v1.33.1 (linux/arm64) kubernetes/8adc0f0",
  "objectRef": {
    "resource": "flowschemas",
    "apiGroup": "flowcontrol.apiserver.k8s.io",
    "apiVersion": "v1"
  },
  "responseStatus": {
    "metadata": {},
    "code": 200
  },
  "requestReceivedTimestamp": "2026-05-08T08:12:59.665900Z",
  "stageTimestamp": "2026-05-08T08:22:36.636099Z",
  "annotations": {
    "authorization.k8s.io/decision": "allow",
    "authorization.k8s.io/reason": ""
  }
}`.split("\n"),
    requests: [
      {
        verb: "watch",
        resource: "flowschemas.flowcontrol.apiserver.k8s.io",
        servedFrom: "cache (inferred)",
        latencyMs: 576_970.199,
        userAgent: "kube-apiserver/v1.33.1",
        error: false,
        code: 200,
      },
    ],
  },
  {
    source: "https://github.com/siderolabs/talos/pull/13670",
    shows: "a pretty-printed audit event at RequestReceived: skipped (the request is logged again when it completes)",
    lines: `{
  "kind": "Event",
  "apiVersion": "audit.k8s.io/v1",
  "level": "Metadata",
  "auditID": "e7da32e7-30a5-467f-a9c8-6c240de1f596",
  "stage": "RequestReceived",
  "requestURI": "/api/v1/nodes/talos-default-controlplane-2?timeout=30s",
  "verb": "get",
  "user": {
    "username": "admin",
    "groups": [
      "system:masters",
      "system:authenticated"
    ],
    "extra": {
      "authentication.kubernetes.io/credential-id": [
        "X509SHA256=696bd138dac53304ee1c94ad6c75c4fef5d38cc7c95c4c679d45c70bd0bc18aa"
      ]
    }
  },
  "sourceIPs": [
    "172.20.0.1"
  ],
  "userAgent": "Talos/v1.14.0-alpha.2-8-gba926c6ce-dirty",
  "objectRef": {
    "resource": "nodes",
    "name": "talos-default-controlplane-2",
    "apiVersion": "v1"
  },
  "requestReceivedTimestamp": "2026-06-29T08:22:24.995217Z",
  "stageTimestamp": "2026-06-29T08:22:24.995217Z"
}`.split("\n"),
    requests: [],
    skippedAuditStages: 1,
  },
  {
    source: "https://github.com/kubernetes/kubernetes/issues/126466",
    shows: "an audit event on one line at RequestReceived: skipped",
    lines: [
      `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a7ff49e7-bf12-4dcb-bc0c-09aec5c3ee44","stage":"RequestReceived","requestURI":"/api/v1/namespaces?timeout=3s\\u0026timeoutSeconds=3\\u0026watch=true","verb":"watch","user":{"username":"system:apiserver","uid":"3a730033-bfdc-488f-aec1-5087d05e9a10","groups":["system:masters"]},"sourceIPs":["127.0.0.1"],"userAgent":"TestAuditWatch","objectRef":{"resource":"namespaces","apiVersion":"v1"},"requestReceivedTimestamp":"2024-07-30T16:11:57.119863Z","stageTimestamp":"2024-07-30T16:11:57.119863Z"}`,
    ],
    requests: [],
    skippedAuditStages: 1,
  },
];
