import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServedResource } from "../engine/served-resource.js";
import { buildOpenApiV2, buildOpenApiV3 } from "./openapi.js";
import { writeJson, writeText } from "./responsewriters.js";

/** Whether an Accept header admits JSON (absent, `*\/*`, `application/*`, `application/json`). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((part) => {
    const t = (part.split(";")[0] ?? "").trim().toLowerCase();
    return t === "*/*" || t === "application/*" || t === "application/json";
  });
}

function notAcceptable(res: ServerResponse, accept: string | undefined): void {
  // The simulator serves the documents as JSON only: kubectl and client-go fall back (v2's protobuf) or ask for JSON.
  writeText(res, 406, `only application/json is served, not ${JSON.stringify(accept)}\n`);
}

function notModified(req: IncomingMessage, etag: string): boolean {
  const inm = req.headers["if-none-match"];
  return inm?.split(",").some((t) => t.trim() === etag) === true;
}

/**
 * Serves kube-apiserver's OpenAPI endpoints (kube-openapi's `handler` and `handler3`): `GET /openapi/v2` (one
 * document, `ETag` and `If-None-Match`) and `GET /openapi/v3` (the index of group versions, each with a
 * `serverRelativeURL` carrying the document's hash) and `/openapi/v3/<api/v1|apis/g/v>` (a request with a stale
 * `hash` is redirected, 301, to the current one; with the current hash the answer is cacheable for good, as
 * upstream's). JSON only: an Accept admitting only protobuf is a 406. Returns false for another path (or an unknown
 * group version) so the caller answers 404.
 */
export function serveOpenApi(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  resources: readonly ServedResource[],
): boolean {
  const accept = req.headers.accept;
  if (path === "/openapi/v2") {
    if (!acceptsJson(accept)) {
      notAcceptable(res, accept);
      return true;
    }
    const v2 = buildOpenApiV2(resources);
    if (notModified(req, v2.etag)) {
      res.writeHead(304, { ETag: v2.etag, Vary: "Accept" });
      res.end();
      return true;
    }
    res.writeHead(200, {
      ETag: v2.etag,
      Vary: "Accept",
      "Content-Type": "application/json",
      "X-Content-Type-Options": "nosniff",
      "Content-Length": String(Buffer.byteLength(v2.body)),
    });
    res.end(v2.body);
    return true;
  }
  if (path === "/openapi/v3") {
    writeJson(res, 200, buildOpenApiV3(resources).index);
    return true;
  }
  if (!path.startsWith("/openapi/v3/")) return false;
  const key = path.slice("/openapi/v3/".length);
  const v3 = buildOpenApiV3(resources);
  const doc = v3.docs.get(key);
  const hash = v3.hashes.get(key);
  if (doc === undefined || hash === undefined) return false;
  const asked = query.get("hash");
  if (asked !== null && asked !== hash) {
    res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${hash}`, "Content-Length": "0" });
    res.end();
    return true;
  }
  if (!acceptsJson(accept)) {
    notAcceptable(res, accept);
    return true;
  }
  const etag = `"${hash}"`;
  const headers = {
    ETag: etag,
    Vary: "Accept",
    "Cache-Control": asked === hash ? "public, immutable" : "no-cache, private",
  };
  if (notModified(req, etag)) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  res.writeHead(200, {
    ...headers,
    "Content-Type": "application/json",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": String(Buffer.byteLength(doc)),
  });
  res.end(doc);
  return true;
}
