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
const tokenPath = "/api/v1/namespaces/default/serviceaccounts/robot/token";

async function serviceAccount(s: EngineServer): Promise<void> {
  const sa = await fetchRaw(`${s.url}/api/v1/namespaces/default/serviceaccounts`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ metadata: { name: "robot" } }),
  });
  expect(sa.status).toBe(201);
}

describe("serviceaccounts/token over HTTP (TokenREST)", () => {
  it("POST answers 201 with the TokenRequest; its token passes a TokenReview", async () => {
    srv = await startEngineServer(new FakeClock(Date.parse("2026-05-01T00:00:00Z")));
    await serviceAccount(srv);
    const r = await fetchRaw(`${srv.url}${tokenPath}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 7200 },
      }),
    });
    expect(r.text).toContain("TokenRequest");
    expect(r.status).toBe(201);
    const tr = r.json as {
      kind: string;
      metadata: { name: string };
      status: { token: string; expirationTimestamp: string };
    };
    expect(tr.kind).toBe("TokenRequest");
    expect(tr.metadata.name).toBe("robot");
    expect(tr.status.expirationTimestamp).toBe("2026-05-01T02:00:00Z");
    const review = await fetchRaw(`${srv.url}/apis/authentication.k8s.io/v1/tokenreviews`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token: tr.status.token },
      }),
    });
    expect(review.status).toBe(201);
    expect((review.json as { status: unknown }).status).toMatchObject({
      authenticated: true,
      user: { username: "system:serviceaccount:default:robot" },
    });
  });

  it("the route serves POST only, on serviceaccounts only; a body naming another account is 400", async () => {
    srv = await startEngineServer(new FakeClock());
    expect((await fetchRaw(`${srv.url}${tokenPath}`)).status).toBe(405);
    const onConfigMap = await fetchRaw(`${srv.url}/api/v1/namespaces/default/configmaps/x/token`, {
      method: "POST",
      headers: json,
      body: "{}",
    });
    expect(onConfigMap.status).toBe(404);
    const missing = await fetchRaw(`${srv.url}${tokenPath}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ spec: {} }),
    });
    expect(missing.status).toBe(404);
    expect((missing.json as { message: string }).message).toBe('serviceaccounts "robot" not found');
    await serviceAccount(srv);
    const other = await fetchRaw(`${srv.url}${tokenPath}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ metadata: { name: "someone-else" }, spec: {} }),
    });
    expect(other.status).toBe(400);
    expect((other.json as { message: string }).message).toBe(
      "the name of the object (someone-else) does not match the name on the URL (robot)",
    );
  });
});
