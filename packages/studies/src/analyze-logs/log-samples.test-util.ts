// Sample kube-apiserver log lines in the real formats (httplog, audit.k8s.io/v1 events, k8s.io/utils/trace blocks,
// klog JSON, CRI and docker wrappers), written for the analyze-logs tests.

const UA_KCM =
  "kube-controller-manager/v1.28.3 (linux/amd64) kubernetes/a8a1abc/system:serviceaccount:kube-system:pod-garbage-collector";
const UA_KUBELET = "kubelet/v1.28.3 (linux/amd64) kubernetes/a8a1abc";
const UA_KUBECTL = "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9";
export const AUDIT_ID_SLOW_LIST = "0b4f3e2a-6c1d-4d0e-9a39-1b2c3d4e5f60";

/** klog text httplog lines (kube-apiserver ≥ 1.27 with APF fields), a trace block interleaved, one multi-line value. */
export const HTTPLOG_LINES: readonly string[] = [
  `I1125 20:25:00.123456      12 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/pods?limit=500" latency="812.345678ms" userAgent="${UA_KCM}" audit-ID="${AUDIT_ID_SLOW_LIST}" srcIP="10.0.0.12:51234" apf_pl="workload-high" apf_fs="kube-system-service-accounts" apf_iseats=10 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="811.2ms" resp=200`,
  `I1125 20:25:00.935712      12 trace.go:236] Trace[1988148393]: "List" accept:application/json, */*,audit-id:${AUDIT_ID_SLOW_LIST},client:10.0.0.12,protocol:HTTP/2.0,resource:pods,scope:cluster,url:/api/v1/pods,user-agent:${UA_KCM},verb:LIST (25-Nov-2026 20:25:00.123) (total time: 812ms):`,
  `Trace[1988148393]: ["List(recursive=true) etcd3" audit-id:${AUDIT_ID_SLOW_LIST},key:/pods,resourceVersion:,resourceVersionMatch:,limit:500,continue: 640ms (20:25:00.124)]`,
  `I1125 20:25:01.000001      12 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/app-config" latency="2.1ms" userAgent="${UA_KUBELET}" audit-ID="1c5e7a10-0000-4000-8000-000000000001" srcIP="10.0.1.5:40000" apf_pl="system" apf_fs="system-nodes" apf_iseats=1 apf_fseats=0 apf_additionalLatency="0s" apf_execution_time="1.9ms" resp=200`,
  `Trace[1988148393]: ---"Writing http response done" count:5000 170ms (20:25:00.935)`,
  `Trace[1988148393]: [812.345678ms] [812.345678ms] END`,
  `I1125 20:25:02.000002      12 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/app-config?resourceVersion=0" latency="350µs" userAgent="${UA_KUBELET}" audit-ID="1c5e7a10-0000-4000-8000-000000000002" srcIP="10.0.1.5:40000" resp=200`,
  `I1125 20:25:03.000003      12 httplog.go:132] "HTTP" verb="WATCH" URI="/api/v1/pods?allowWatchBookmarks=true&resourceVersion=1234&timeout=7m54s&timeoutSeconds=474&watch=true" latency="7m54.000131s" userAgent="${UA_KCM}" audit-ID="1c5e7a10-0000-4000-8000-000000000003" srcIP="10.0.0.12:51234" resp=200`,
  `I1125 20:25:04.000004      12 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/namespaces/default/pods?labelSelector=app%3Dnginx&limit=500" latency="1.5s" userAgent="${UA_KUBECTL}" audit-ID="1c5e7a10-0000-4000-8000-000000000004" srcIP="192.168.1.7:60000" resp=200`,
  `I1125 20:25:05.000005      12 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/namespaces/default/configmaps/gone" latency="1.2ms" userAgent="${UA_KUBELET}" audit-ID="1c5e7a10-0000-4000-8000-000000000005" srcIP="10.0.1.5:40000" resp=404 statusStack=<`,
  "\tgoroutine 1 [running]:",
  "\tk8s.io/apiserver/pkg/server/httplog.(*respLogger).recordStatus(...)",
  " >",
  `I1125 20:25:06.000006      12 httplog.go:132] "HTTP" verb="POST" URI="/api/v1/namespaces/default/events" latency="3ms" userAgent="${UA_KUBELET}" audit-ID="1c5e7a10-0000-4000-8000-000000000006" srcIP="10.0.1.5:40000" resp=201`,
  `I1125 20:25:07.000007      12 cacher.go:460] cacher (pods): 1 objects queued in incoming channel.`,
];

/** audit.k8s.io/v1 events: the slow list again (same audit ID as its httplog line), one request at two stages. */
export const AUDIT_LINES: readonly string[] = [
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: AUDIT_ID_SLOW_LIST,
    stage: "ResponseComplete",
    requestURI: "/api/v1/pods?limit=500",
    verb: "list",
    user: { username: "system:serviceaccount:kube-system:pod-garbage-collector", groups: ["system:serviceaccounts"] },
    sourceIPs: ["10.0.0.12"],
    userAgent: UA_KCM,
    objectRef: { resource: "pods", apiVersion: "v1" },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: "2026-11-25T20:25:00.123456Z",
    stageTimestamp: "2026-11-25T20:25:00.935801Z",
    annotations: { "authorization.k8s.io/decision": "allow" },
  }),
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Request",
    auditID: "ceffa547-327f-4afe-8d8e-b6e33d4e4e41",
    stage: "RequestReceived",
    requestURI: "/api/v1/namespaces/xxx/configmaps/test-operator",
    verb: "update",
    user: { username: "user1", groups: ["tenant:default"] },
    sourceIPs: ["11.11.11.100"],
    userAgent: "test-operator/v0.0.0 (linux/amd64) kubernetes/$Format/platform.test_operator",
    objectRef: { resource: "configmaps", namespace: "xxx", name: "test-operator", apiVersion: "v1" },
    requestReceivedTimestamp: "2026-11-25T20:26:00.000000Z",
    stageTimestamp: "2026-11-25T20:26:00.000000Z",
  }),
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Request",
    auditID: "ceffa547-327f-4afe-8d8e-b6e33d4e4e41",
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/xxx/configmaps/test-operator",
    verb: "update",
    user: { username: "user1", groups: ["tenant:default"] },
    sourceIPs: ["11.11.11.100"],
    userAgent: "test-operator/v0.0.0 (linux/amd64) kubernetes/$Format/platform.test_operator",
    objectRef: {
      resource: "configmaps",
      namespace: "xxx",
      name: "test-operator",
      apiVersion: "v1",
      resourceVersion: "18892810911",
    },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: "2026-11-25T20:26:00.000000Z",
    stageTimestamp: "2026-11-25T20:26:00.004500Z",
  }),
];

/** The format of older releases (the write-up's): `(started: …)`, Go durations, `[elapsed] [step]` steps. */
export const OLD_TRACE_LINES: readonly string[] = [
  'I0325 10:43:27.123456       1 trace.go:205] Trace[1234567]: "List etcd3" key:/pods,resourceVersion:,limit:500,continue: (started: 2021-03-25 10:43:26.100 +0800 CST m=+100.1) (total time: 1.02s):',
  "Trace[1234567]: [1.019s] [1.019s] Listed items from etcd",
  "Trace[1234567]: [1.02s] [1ms] END",
];

/** klog JSON logging (`--logging-format=json`), a CRI-wrapped text line and a docker json-file line. */
export const WRAPPED_LINES: readonly string[] = [
  `{"ts":1764102300123.456,"caller":"httplog/httplog.go:132","msg":"HTTP","v":0,"verb":"LIST","URI":"/apis/apps/v1/statefulsets?limit=500","latency":"25.5ms","userAgent":"kubectl/v1.32.0","audit-ID":"j-1","srcIP":"10.0.0.9:1","resp":200}`,
  `{"ts":1764102300999.1,"caller":"trace/trace.go:236","msg":"Trace[77]: \\"Get\\" audit-id:j-2,url:/api/v1/nodes/n1,user-agent:kubelet/v1.28.3,verb:GET (25-Nov-2026 20:25:00.100) (total time: 600ms):\\nTrace[77]: ---\\"About to write a response\\" 590ms (20:25:00.690)\\nTrace[77]: [600.1ms] [10ms] END\\n","v":0}`,
  `2026-11-25T20:25:00.123456789Z stderr F I1125 20:25:00.123456      12 httplog.go:132] "HTTP" verb="GET" URI="/api/v1/nodes/n1" latency="600ms" userAgent="kubelet/v1.28.3" audit-ID="j-2" srcIP="10.0.1.5:1" resp=200`,
  `{"log":"I1125 20:25:09.000000      12 httplog.go:132] \\"HTTP\\" verb=\\"DELETE\\" URI=\\"/api/v1/namespaces/a/pods\\" latency=\\"9ms\\" userAgent=\\"kubectl/v1.32.0\\" audit-ID=\\"d-1\\" srcIP=\\"1.2.3.4:5\\" resp=200\\n","stream":"stderr","time":"2026-11-25T20:25:09Z"}`,
  `{"level":"info","msg":"HTTP","ts":"2026-11-25T20:25:10.000Z","verb":"list","method":"GET","uri":"/api/v1/configmaps?resourceVersion=0","code":200,"user":"admin","userAgent":"informer-ts/0.1","latencyMs":4}`,
];

/** Lines that must be counted as malformed (with the reason in the comment). */
export const MALFORMED_LINES: readonly string[] = [
  '{"kind":"Event","apiVersion":"audit.k8s.io/v1",', // invalid JSON
  `I1125 20:25:03.000000      12 httplog.go:132] "HTTP" verb="LIST" URI="/api/v1/pods" latency="fast" resp=200`, // bad latency
  'Trace[42]: ---"orphan step" 5ms (20:25:00.000)', // step without its header
  "this is not a log line", // no known format
  `I1125 20:25:03.000000      12 httplog.go:132] "HTTP" latency="1ms" resp=200`, // no verb
  '{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete"}', // no verb
];
