// Continue tokens: reference/apiserver.md §7.3 (real format, the documented examples) and §2 (undecodable → 400).
import { StatusError } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeContinue, encodeContinue } from "./continue-token.js";

// The two tokens of §7.3: a page of configmaps at RV 10245 ending at cm-0499, and its inconsistent variant (rv -1).
const DOC_TOKEN = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAyNDUsInN0YXJ0IjoiY20tMDQ5OVx1MDAwMCJ9";
const DOC_INCONSISTENT = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY20tMDQ5OVx1MDAwMCJ9";

const b64 = (json: string) => Buffer.from(json).toString("base64url");

describe("continue tokens: format", () => {
  it("§7.3: encodes exactly the documented token and its inconsistent variant", () => {
    expect(encodeContinue("default/cm-0499", "default/", 10245)).toBe(DOC_TOKEN);
    expect(encodeContinue("default/cm-0499", "default/", -1)).toBe(DOC_INCONSISTENT);
    expect(Buffer.from(DOC_TOKEN, "base64url").toString()).toBe(
      '{"v":"meta.k8s.io/v1","rv":10245,"start":"cm-0499\\u0000"}',
    );
  });

  it("§7.3: decodes the documented tokens under the request's prefix", () => {
    expect(decodeContinue(DOC_TOKEN, "default/")).toEqual({ fromKey: "default/cm-0499\u0000", rv: 10245 });
    expect(decodeContinue(DOC_INCONSISTENT, "")).toEqual({ fromKey: "cm-0499\u0000", rv: -1 });
  });

  it("no padding and only the URL alphabet", () => {
    const t = encodeContinue("ns/a?b", "", 7);
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("round trip: any key under the prefix and any non-zero RV", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("", "default/", "kube-system/"),
        fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?(\/[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?)?$/),
        fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
        (prefix, rest, rv) => {
          const token = encodeContinue(prefix + rest, prefix, rv);
          expect(decodeContinue(token, prefix)).toEqual({ fromKey: `${prefix}${rest}\u0000`, rv });
        },
      ),
    );
  });

  it("a start key with a leading slash is cleaned, as upstream (path.Clean of '/' + start)", () => {
    expect(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":3,"start":"/a/b"}'), "ns/").fromKey).toBe("ns/a/b");
    expect(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":3,"start":"/"}'), "ns/").fromKey).toBe("ns/");
  });
});

function badRequestMessage(token: string): string {
  try {
    decodeContinue(token, "default/");
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    expect([err.code, err.reason]).toEqual([400, "BadRequest"]);
    return err.message;
  }
  throw new Error(`token ${JSON.stringify(token)} was accepted`);
}

const P = "invalid continue token: continue key is not valid";

describe("continue tokens: bad tokens → 400 with the real message", () => {
  it.each([
    {
      what: "a character outside the URL alphabet",
      token: "eyJ2Ij!",
      message: `${P}: illegal base64 data at input byte 6`,
    },
    { what: "padding", token: `${b64('{"v":"x"}')}==`, message: `${P}: illegal base64 data at input byte 12` },
    { what: "a lone trailing character", token: "abcde", message: `${P}: illegal base64 data at input byte 4` },
    { what: "empty JSON", token: "", message: `${P}: unexpected end of JSON input` },
    { what: "not JSON", token: b64("hello"), message: `${P}: invalid character 'h' looking for beginning of value` },
    {
      what: "a JSON array",
      token: b64("[1]"),
      message: `${P}: json: cannot unmarshal array into Go value of type storage.continueToken`,
    },
    {
      what: "rv as a string",
      token: b64('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'),
      message: `${P}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`,
    },
    {
      what: "a fractional rv",
      token: b64('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'),
      message: `${P}: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64`,
    },
    {
      what: "an unknown version",
      token: b64('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}'),
      message: `${P}: server does not recognize this encoded version meta.k8s.io/v2`,
    },
    {
      what: "no version (null JSON)",
      token: b64("null"),
      message: `${P}: server does not recognize this encoded version `,
    },
    {
      what: "a zero rv",
      token: b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
      message: `${P}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`,
    },
    {
      what: "no rv",
      token: b64('{"v":"meta.k8s.io/v1","start":"a"}'),
      message: `${P}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`,
    },
    {
      what: "an empty start key",
      token: b64('{"v":"meta.k8s.io/v1","rv":5,"start":""}'),
      message: `${P}: encoded start key empty`,
    },
    ...["../other/a", "a/../../b", "a//b", "a/./b", "a/"].map((start) => ({
      what: `a start key that escapes or is not clean (${start})`,
      token: b64(JSON.stringify({ v: "meta.k8s.io/v1", rv: 5, start })),
      message: `${P}: ${start}`,
    })),
  ])("$what", ({ token, message }) => {
    expect(badRequestMessage(token)).toBe(message);
  });
});
