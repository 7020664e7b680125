import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { newJsonLineLogger } from "@informer-ts/instrumentation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../engine/sim-apiserver.js";
import { EngineBackend } from "./engine-backend.js";
import { configMap } from "./engine-server.test-util.js";
import { fetchRaw, type RawResponse } from "./http-client.test-util.js";
import { SimHttpServer } from "./server.js";

const clock = new FakeClock();
const logs: Array<{ msg: string }> = [];
const audit: Array<Record<string, unknown>> = [];
const httpLog: Array<Record<string, unknown>> = [];
let engine: SimApiServer;
let http: SimHttpServer;
let url: string;

beforeAll(async () => {
  engine = new SimApiServer({
    clock,
    rand: seededRand(5),
    costModel: true,
    traceLog: { thresholdMs: 0 }, // every request, every step
    logger: newJsonLineLogger((l) => logs.push(JSON.parse(l))),
  });
  engine.accounting.auditLog = (l) => audit.push(JSON.parse(l));
  const created = engine.create("configmaps", "default", configMap("a"));
  await clock.step(100); // the create's modelled latency
  await created;
  http = new SimHttpServer({
    backend: new EngineBackend(engine),
    clock,
    logger: newJsonLineLogger((l) => httpLog.push(JSON.parse(l))),
  });
  url = await http.start();
});

afterAll(async () => {
  await http.close();
  engine.stop();
});

/** A request whose answer waits on the modelled latency: the fake clock moves until it arrives. */
async function request(path: string, headers: Record<string, string>): Promise<RawResponse> {
  let done = false;
  const p = fetchRaw(`${url}${path}`, { headers }).finally(() => {
    done = true;
  });
  for (let i = 0; i < 1000 && !done; i++) {
    await settle();
    await clock.step(1);
  }
  return p;
}

describe("request models over HTTP", () => {
  it("trace the connection as kube-apiserver does and share the audit ID with the audit line", async () => {
    const r = await request("/api/v1/namespaces/default/configmaps/a", {
      "user-agent": "kubelet/v1.28.0",
      accept: "application/json",
    });
    expect(r.status).toBe(200);
    const line = audit.find((e) => e.userAgent === "kubelet/v1.28.0")!;
    expect(line.requestURI).toBe("/api/v1/namespaces/default/configmaps/a");
    expect(line.sourceIPs).toEqual([expect.stringMatching(/127\.0\.0\.1$/)]);
    const ann = line.annotations as Record<string, string>;
    expect(ann["sim.informer-ts.dev/served-from"]).toBe("storage");
    expect(Number(ann["sim.informer-ts.dev/cpu-ms"])).toBeGreaterThan(0);
    expect(ann["sim.informer-ts.dev/apf-seats"]).toBe("1");
    const trace = logs.map((l) => l.msg).find((m) => m.includes(`audit-id:${line.auditID as string},`))!;
    const [head, ...steps] = trace.split("\n");
    expect(head).toMatch(
      /^Trace\[\d+\]: "Get" accept:application\/json,audit-id:sim-\d+,client:[\d.:f]*127\.0\.0\.1,protocol:HTTP\/1\.1,resource:configmaps,scope:resource,url:\/api\/v1\/namespaces\/default\/configmaps\/a,user-agent:kubelet\/v1\.28\.0,verb:GET \(.*\) \(total time: \d+ms\):$/,
    );
    // The httplog line carries the same audit ID and kube-apiserver's APF fields (write-up 000's lines have them).
    const hl = httpLog.find((l) => l.userAgent === "kubelet/v1.28.0")!;
    expect(hl).toMatchObject({
      msg: "HTTP",
      auditID: line.auditID,
      apf_iseats: 1,
      apf_fseats: 0,
      apf_additionalLatency: "0s",
    });
    expect(hl.apf_execution_time).toMatch(/^[\d.]+(µs|ms)$/);
    expect(steps.map((s) => /---"([^"]+)"/.exec(s)?.[1] ?? "END")).toEqual([
      "About to Get from storage",
      "About to write a response",
      "Writing http response done",
      "END",
    ]);
  });
});
