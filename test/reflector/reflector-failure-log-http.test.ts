// Issue: a reflector against a server that is down used to retry forever without a word. Over real HTTP (a
// refused loopback port) its first failure is a warning that names the URL it tried, taken from listWatchFor's
// `target`; a custom resource answering 404 names its group/version/resource and asks whether the CRD is installed.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { KubeObject } from "@informer-ts/apimachinery";
import { type LogLevel, metaNamespaceKeyFunc, newStore, Reflector } from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { builtinResources, customResource, KubeClient, listWatchFor } from "@informer-ts/client";
import { FakeClock } from "@informer-ts/clock";
import { expect, it } from "vitest";

async function ioUntil(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

function capture() {
  const lines: { level: LogLevel; message: string; fields: Record<string, unknown> }[] = [];
  return {
    lines,
    log: (level: LogLevel, message: string, fields?: Record<string, unknown>) =>
      lines.push({ level, message, fields: { ...fields } }),
  };
}

/** A port nothing listens on: bound once, then closed. */
async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

it("server down: the first failure warns once with the URL tried", async () => {
  const clock = new FakeClock();
  const server = `http://127.0.0.1:${await refusedPort()}`;
  const client = new KubeClient({ server }, { clock, maxRetries: 0, rateLimiter: null, quiet: true });
  const logger = capture();
  const r = new Reflector(
    listWatchFor<KubeObject>(client, builtinResources.configmaps, { namespace: "default" }),
    undefined,
    newStore<KubeObject>(metaNamespaceKeyFunc),
    {
      clock,
      logger,
      name: "down",
      watchErrorHandler: () => {},
    },
  );
  const run = startRun(r);
  try {
    await ioUntil(() => logger.lines.some((l) => l.level === "warn"), "the first warning");
    const warnings = logger.lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/^(watch-list|list) of <unspecified> failed \(unreachable\)$/);
    expect(warnings[0]?.fields.hint).toBe(
      `the server at ${server} does not answer: is it running, and is that the right address?`,
    );
    expect(r.status().failure).toMatchObject({ kind: "unreachable", tries: 1 });
  } finally {
    await run.stop();
    await client.close();
  }
});

it("a custom resource the server does not serve: 404 names group/version/resource and asks about the CRD", async () => {
  const http = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "NotFound",
        code: 404,
        message: "the server could not find the requested resource",
      }),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const clock = new FakeClock();
  const server = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = new KubeClient({ server }, { clock, maxRetries: 0, rateLimiter: null, quiet: true });
  const logger = capture();
  const widgets = customResource({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
  });
  const r = new Reflector(
    listWatchFor<KubeObject>(client, widgets, { namespace: "default" }),
    { apiVersion: "example.com/v1", kind: "Widget" },
    newStore<KubeObject>(metaNamespaceKeyFunc),
    {
      clock,
      logger,
      name: "crd",
      useWatchList: false,
      watchErrorHandler: () => {},
    },
  );
  const run = startRun(r);
  try {
    await ioUntil(() => logger.lines.some((l) => l.level === "warn"), "the first warning");
    const warning = logger.lines.find((l) => l.level === "warn");
    expect(warning?.message).toBe("list of example.com/v1, Kind=Widget failed (not-found)");
    expect(warning?.fields.code).toBe(404);
    expect(warning?.fields.hint).toBe(
      "the server does not serve example.com/v1/widgets in namespace default: check the group/version/resource; for a custom resource, is the CRD installed?",
    );
  } finally {
    await run.stop();
    await client.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
});
