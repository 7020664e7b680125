// What a KubeClient logs by default: retries, final failures, throttling; nothing with `quiet: true`.
import { FakeClock } from "@informer-ts/clock";
import type { LogFields, LogLevel } from "@informer-ts/instrumentation";
import { MockAgent } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import { KubeClient } from "./rest-client.js";

const origin = "http://apiserver.test:6443";
const json = { "content-type": "application/json" };
const list = JSON.stringify({ metadata: { resourceVersion: "1" }, items: [] });
const status = (code: number, message?: string) =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, message });

type Reply = { code: number; retryAfter?: number; message?: string } | { error: Error };

/** A MockAgent answering GETs with `replies` in turn (then 200). */
function agentWith(replies: Reply[]): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(origin);
  for (const r of replies) {
    const i = pool.intercept({ path: () => true, method: "GET" });
    if ("error" in r) i.replyWithError(r.error);
    else
      i.reply(r.code, status(r.code, r.message), {
        headers: r.retryAfter === undefined ? json : { ...json, "retry-after": String(r.retryAfter) },
      });
  }
  pool
    .intercept({ path: () => true, method: "GET" })
    .reply(200, list, { headers: json })
    .persist();
  return agent;
}

interface Line {
  level: LogLevel;
  message: string;
  fields?: LogFields;
}

const agents: MockAgent[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function listWith(
  replies: Reply[],
  options: { quiet?: boolean; capture?: boolean } = { capture: true },
): Promise<{ lines: Line[]; outcome: string }> {
  const agent = agentWith(replies);
  agents.push(agent);
  const clock = new FakeClock();
  const lines: Line[] = [];
  const c = new KubeClient(
    { server: origin },
    {
      clock,
      dispatcher: agent,
      rateLimiter: null,
      ...(options.quiet !== undefined && { quiet: options.quiet }),
      ...(options.capture === true && {
        logger: { log: (level, message, fields) => lines.push({ level, message, ...(fields && { fields }) }) },
      }),
    },
  );
  let outcome = "pending";
  const p = c.list(builtinResources.configmaps).then(
    () => {
      outcome = "ok";
    },
    (e: unknown) => {
      outcome = e instanceof Error ? e.message : String(e);
    },
  );
  for (let i = 0; i < 200 && outcome === "pending"; i++) await clock.runUntilIdle();
  await p;
  await c.close();
  return { lines, outcome };
}

describe("KubeClient request logs", () => {
  it("logs a Retry-After retry at info with the attempt, the wait and the reason", async () => {
    const { lines, outcome } = await listWith([{ code: 503, retryAfter: 2, message: "etcd is unavailable" }]);
    expect(outcome).toBe("ok");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      fields: { verb: "GET", url: `${origin}/api/v1/configmaps`, attempt: 1, waitMs: 2000 },
    });
    // One line naming verb, URL, attempt, the server's reason and the wait, each once (issue 22).
    expect(lines[0]!.message).toBe(
      `GET ${origin}/api/v1/configmaps attempt 1 failed, retrying in 2.0 s: 503 Service Unavailable: etcd is unavailable`,
    );
  });

  it("a retry answer that is the last one allowed still reports the server's Status as the error", async () => {
    const agent = agentWith(Array.from({ length: 12 }, () => ({ code: 503, retryAfter: 1, message: "still down" })));
    agents.push(agent);
    const clock = new FakeClock();
    const c = new KubeClient({ server: origin }, { clock, dispatcher: agent, rateLimiter: null, quiet: true });
    let outcome: unknown = "pending";
    const p = c.list(builtinResources.configmaps).then(
      () => "ok",
      (e: unknown) => e,
    );
    void p.then((o) => {
      outcome = o;
    });
    for (let i = 0; i < 400 && outcome === "pending"; i++) await clock.runUntilIdle();
    await p;
    await c.close();
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toContain("still down");
  });

  it("logs a 5xx answer with no retry left at warn, and a 4xx answer not at all", async () => {
    const failed = await listWith([{ code: 500 }]);
    expect(failed.outcome).not.toBe("ok");
    expect(failed.lines).toEqual([
      {
        level: "warn",
        message: "GET failed: the server answered 500",
        fields: { verb: "GET", url: `${origin}/api/v1/configmaps`, attempts: 1, code: 500 },
      },
    ]);
    const notFound = await listWith([{ code: 404 }]);
    expect(notFound.outcome).not.toBe("ok");
    expect(notFound.lines).toEqual([]);
  });

  it("logs a transport error that ends the request at warn, naming it", async () => {
    const { lines, outcome } = await listWith([{ error: new Error("certificate has expired") }]);
    expect(outcome).toMatch(/certificate has expired/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn", fields: { verb: "GET", attempts: 1 } });
    expect(lines[0]!.message).toMatch(/^GET failed: certificate has expired/);
  });

  it("writes to stderr by default (the runtime logger, logger=client), and nothing with quiet: true", async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    await listWith([{ code: 500 }], {});
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: "warn", logger: "client", msg: "GET failed: the server answered 500" });
    written.length = 0;
    await listWith([{ code: 500 }, { code: 503, retryAfter: 1 }], { quiet: true });
    expect(written).toEqual([]);
  });
});
