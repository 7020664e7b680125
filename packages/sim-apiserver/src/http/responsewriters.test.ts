import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { deepFreeze } from "../engine/object-util.js";
import { fetchRaw } from "./http-client.test-util.js";
import { STREAMED_LIST_MIN_ITEMS, writeJsonList } from "./responsewriters.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

/** A server answering every request with `list`; `written` resolves when writeJsonList did. */
async function serve(list: Record<string, unknown>) {
  let finished!: () => void;
  const written = new Promise<void>((r) => {
    finished = r;
  });
  const server = createServer((_req, res) => {
    void writeJsonList(res, list).then(finished);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, written };
}

function configMapList(n: number) {
  return {
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "42", continue: "tok" },
    items: Array.from({ length: n }, (_, i) => ({
      metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: String(i + 1) },
      data: { payload: "é".repeat(300) + String(i) },
    })),
  };
}

describe("writeJsonList", () => {
  it("a small list is one body with Content-Length", async () => {
    const list = configMapList(3);
    const { url } = await serve(list);
    const r = await fetchRaw(url);
    expect(r.text).toBe(`${JSON.stringify(list)}\n`);
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers["transfer-encoding"]).toBeUndefined();
  });

  it("a small list of the engine's deep-frozen items is the same JSON; a list whose items do not come last keeps its key order", async () => {
    const frozen = configMapList(STREAMED_LIST_MIN_ITEMS);
    frozen.items = frozen.items.map((o) => deepFreeze(o));
    const a = await fetchRaw((await serve(frozen)).url);
    expect(a.text).toBe(`${JSON.stringify(frozen)}\n`);
    expect(a.headers["content-length"]).toBe(String(Buffer.byteLength(a.text)));
    const { items, ...head } = configMapList(2);
    const itemsFirst = { items: [...items, undefined], ...head };
    const b = await fetchRaw((await serve(itemsFirst)).url);
    expect(b.text).toBe(`${JSON.stringify(itemsFirst)}\n`);
    const withHole = { ...head, items: [items[0], undefined] };
    const c = await fetchRaw((await serve(withHole)).url);
    expect(c.text).toBe(`${JSON.stringify(withHole)}\n`);
    expect(c.json).toMatchObject({ items: [items[0], null] });
  });

  it.each([STREAMED_LIST_MIN_ITEMS + 1, 2000])(
    "a list of %i items is streamed chunked, byte for byte the same JSON (multi-byte text included)",
    async (n) => {
      const list = configMapList(n);
      const { url } = await serve(list);
      const r = await fetchRaw(url);
      expect(r.status).toBe(200);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["transfer-encoding"]).toBe("chunked");
      expect(r.headers["content-length"]).toBeUndefined();
      expect(r.text).toBe(`${JSON.stringify(list)}\n`);
    },
  );

  it("serves the engine's deep-frozen items from their cached encoding and re-encodes anything else", async () => {
    const list = configMapList(STREAMED_LIST_MIN_ITEMS + 1);
    const last = list.items.length - 1;
    list.items = [...list.items.slice(0, last).map((o) => deepFreeze(o)), list.items[last]!];
    const { url } = await serve(list);
    const first = await fetchRaw(url);
    expect(first.text).toBe(`${JSON.stringify(list)}\n`);
    // The last item is not frozen and changes between the two lists: the second body shows the change; the frozen
    // items, encoded once by the first list, come out byte for byte the same.
    list.items[last]!.data.payload = "changed";
    const second = await fetchRaw(url);
    expect(second.text).toBe(`${JSON.stringify(list)}\n`);
    expect(second.text).toContain('"payload":"changed"');
  });

  it("an empty head still yields a valid document", async () => {
    const list = { items: configMapList(STREAMED_LIST_MIN_ITEMS + 2).items };
    const { url } = await serve(list);
    expect((await fetchRaw(url)).json).toEqual(list);
  });

  it("honours back-pressure (waits while the client does not read) and ends when the client goes away", async () => {
    const { url, written } = await serve(configMapList(20_000)); // ~7 MB: more than the socket buffers hold
    let finished = false;
    void written.then(() => {
      finished = true;
    });
    const req = request(url);
    const res = await new Promise<IncomingMessage>((resolve) => {
      req.on("response", resolve);
      req.end();
    });
    await new Promise<void>((resolve) => res.once("data", () => resolve()));
    res.pause(); // stop reading: the server's writes back up
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect(finished).toBe(false); // still waiting for "drain", the rest of the body not encoded
    req.destroy();
    await written;
    expect(finished).toBe(true);
  });
});
