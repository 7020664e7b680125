import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";

let srv: EngineServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const json = { "content-type": "application/json" };

async function withPod(): Promise<EngineServer> {
  srv = await startEngineServer(new FakeClock());
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "i" }] },
  };
  const r = await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods`, {
    method: "POST",
    headers: json,
    body: JSON.stringify(pod),
  });
  expect(r.status).toBe(201);
  return srv;
}

function binding(node: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Binding",
    metadata: { name: "p", ...extra },
    target: { kind: "Node", name: node },
  });
}

describe("pods/binding (BindingREST)", () => {
  it("sets spec.nodeName and PodScheduled=True, answering a Success Status with 201", async () => {
    const s = await withPod();
    const r = await fetchRaw(`${s.url}/api/v1/namespaces/default/pods/p/binding`, {
      method: "POST",
      headers: json,
      body: binding("node-1", { annotations: { a: "b" } }),
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: "Status", status: "Success" });
    const pod = (await fetchRaw(`${s.url}/api/v1/namespaces/default/pods/p`)).json as {
      spec: { nodeName: string };
      metadata: { annotations: Record<string, string> };
      status: { conditions: { type: string; status: string }[] };
    };
    expect(pod.spec.nodeName).toBe("node-1");
    expect(pod.metadata.annotations).toEqual({ a: "b" });
    expect(pod.status.conditions).toContainEqual({ type: "PodScheduled", status: "True" });
  });

  it("a pod already bound is a 409 Conflict naming its node", async () => {
    const s = await withPod();
    const url = `${s.url}/api/v1/namespaces/default/pods/p/binding`;
    expect((await fetchRaw(url, { method: "POST", headers: json, body: binding("n1") })).status).toBe(201);
    const again = await fetchRaw(url, { method: "POST", headers: json, body: binding("n2") });
    expect(again.status).toBe(409);
    expect((again.json as { message: string }).message).toBe(
      'Operation cannot be fulfilled on pods "p": pod p is already assigned to node "n1"',
    );
  });

  it("rejects a target that is not a Node (422), a missing pod (404) and a GET (405)", async () => {
    const s = await withPod();
    const bad = await fetchRaw(`${s.url}/api/v1/namespaces/default/pods/p/binding`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ kind: "Binding", apiVersion: "v1", target: { kind: "Pod", name: "x" } }),
    });
    expect(bad.status).toBe(422);
    expect((bad.json as { message: string }).message).toContain("target.kind");
    const missing = await fetchRaw(`${s.url}/api/v1/namespaces/default/pods/q/binding`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ kind: "Binding", apiVersion: "v1", target: { name: "n1" } }),
    });
    expect(missing.status).toBe(404);
    expect((await fetchRaw(`${s.url}/api/v1/namespaces/default/pods/p/binding`)).status).toBe(405);
  });
});
