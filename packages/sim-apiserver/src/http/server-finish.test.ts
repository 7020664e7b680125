// What SimHttpServer does when a finished request's accounting (the backend's request record: metrics, audit) or its
// httplog line throws: the server keeps serving, the failure is counted in `stats.finishErrors` and logged once at
// `error` with the request line (to the server's logger, or `console.error` when there is none or it throws), and
// the other stage still runs (an accounting failure does not cost the request its httplog line).
import { FakeClock, seededRand } from "@informer-ts/clock";
import type { Logger, LogLevel } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SimApiServer } from "../engine/sim-apiserver.js";
import type { CompletedRequest } from "./backend.js";
import { EngineBackend } from "./engine-backend.js";
import { fetchRaw } from "./http-client.test-util.js";
import { SimHttpServer } from "./server.js";

/** A backend whose request accounting throws; `called` resolves on each call (the finish runs right after). */
class FailingAccounting extends EngineBackend {
  calls = 0;
  private next = deferred();
  get called(): Promise<void> {
    return this.next.promise;
  }
  override recordRequest(_rec: CompletedRequest): void {
    this.calls++;
    const done = this.next;
    this.next = deferred();
    done.resolve();
    throw new Error("audit sink closed");
  }
}

interface Line {
  level: LogLevel;
  message: string;
  fields: Readonly<Record<string, unknown>> | undefined;
}

/** A promise and its resolver (`Promise.withResolvers` is ES2024; the packages target ES2023). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const LIST = "/api/v1/namespaces/default/configmaps";
const servers: Array<{ http: SimHttpServer; engine: SimApiServer }> = [];

function engine(): SimApiServer {
  return new SimApiServer({ clock: new FakeClock(), rand: seededRand(1), compactionIntervalMs: 0 });
}

async function serve(backend: EngineBackend, logger?: Logger): Promise<{ http: SimHttpServer; url: string }> {
  const http = new SimHttpServer({ backend, ...(logger !== undefined && { logger }) });
  servers.push({ http, engine: backend.engine });
  return { http, url: await http.start() };
}

afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) {
    await s.http.close();
    s.engine.stop();
  }
});

describe("SimHttpServer.finish: accounting and httplog failures are visible, never fatal", () => {
  it("a throwing accounting sink is counted and logged with the request line; the httplog line and the next request still happen", async () => {
    const lines: Line[] = [];
    const backend = new FailingAccounting(engine());
    const { http, url } = await serve(backend, {
      log: (level, message, fields) => lines.push({ level, message, fields }),
    });
    const called = backend.called;
    expect((await fetchRaw(`${url}${LIST}`)).status).toBe(200);
    await called;
    expect(http.stats.finishErrors).toBe(1);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ["info", "HTTP"],
      ["error", "HTTP request finish failed"],
    ]);
    expect(lines[1]?.fields).toEqual({
      method: "GET",
      uri: LIST,
      code: 200,
      stage: "accounting",
      error: "audit sink closed",
    });
    const again = backend.called;
    expect((await fetchRaw(`${url}${LIST}?limit=1`)).status).toBe(200);
    await again;
    expect([http.stats.finishErrors, backend.calls, lines.filter((l) => l.level === "error").length]).toEqual([
      2, 2, 2,
    ]);
  });

  it("a logger that throws on the httplog line: counted, reported on console.error, the server keeps answering", async () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    let logged = deferred();
    const logger: Logger = {
      log() {
        logged.resolve();
        throw new Error("log file gone");
      },
    };
    const { http, url } = await serve(new EngineBackend(engine()), logger);
    expect((await fetchRaw(`${url}/api/v1/namespaces/default/configmaps/missing`)).status).toBe(404);
    await logged.promise;
    // The error line also went to the throwing logger, then fell back to the console.
    expect(http.stats.finishErrors).toBe(1);
    expect(consoleError).toHaveBeenCalledTimes(1);
    const printed = String(consoleError.mock.calls[0]?.[0]);
    for (const part of ["HTTP request finish failed", "/api/v1/namespaces/default/configmaps/missing", "httplog"]) {
      expect(printed).toContain(part);
    }
    logged = deferred();
    expect((await fetchRaw(`${url}/healthz`)).text).toBe("ok");
    await logged.promise;
    expect([http.stats.finishErrors, consoleError.mock.calls.length]).toEqual([2, 2]);
  });

  it("without a logger an accounting failure goes to console.error, once per request", async () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    const backend = new FailingAccounting(engine());
    const { http, url } = await serve(backend);
    const called = backend.called;
    expect((await fetchRaw(`${url}${LIST}`)).status).toBe(200);
    await called;
    expect(http.stats.finishErrors).toBe(1);
    expect(consoleError).toHaveBeenCalledTimes(1);
    const printed = String(consoleError.mock.calls[0]?.[0]);
    for (const part of ["HTTP request finish failed", LIST, "accounting", "audit sink closed"]) {
      expect(printed).toContain(part);
    }
  });

  it("requests whose sinks work count no finish error", async () => {
    const lines: Line[] = [];
    const logged = deferred();
    const { http, url } = await serve(new EngineBackend(engine()), {
      log: (level, message, fields) => {
        lines.push({ level, message, fields });
        logged.resolve();
      },
    });
    expect((await fetchRaw(`${url}${LIST}`)).status).toBe(200);
    await logged.promise;
    expect(http.stats.finishErrors).toBe(0);
    expect(lines.map((l) => l.level)).toEqual(["info"]);
  });
});
