import { describe, expect, it } from "vitest";
import { parseKlogHeader, parseKlogStructured, readQuoted } from "./klog-line.js";

describe("klog text lines", () => {
  it("splits the header from the message", () => {
    const h = parseKlogHeader('I1125 20:25:00.123456      12 httplog.go:134] "HTTP" verb="LIST"');
    expect(h).toEqual({
      severity: "I",
      time: "1125 20:25:00.123456",
      pid: 12,
      caller: "httplog.go:134",
      message: '"HTTP" verb="LIST"',
    });
    expect(parseKlogHeader('"HTTP" verb="LIST"')).toBe(undefined);
    expect(parseKlogHeader("I1125 garbage")).toBe(undefined);
  });

  it("parses InfoS bodies: quoted and bare values, escapes, multi-line openers", () => {
    const s = parseKlogStructured(
      '"HTTP" verb="LIST" URI="/api/v1/pods?labelSelector=app%3Dx" userAgent="kubectl/v1.32.0 (linux/amd64) kubernetes/abc \\"q\\"" resp=200 hijacked=true',
    );
    if (typeof s === "string") throw new Error(s);
    expect(s.msg).toBe("HTTP");
    expect(s.values.get("URI")).toBe("/api/v1/pods?labelSelector=app%3Dx");
    expect(s.values.get("userAgent")).toBe('kubectl/v1.32.0 (linux/amd64) kubernetes/abc "q"');
    expect(s.values.get("resp")).toBe("200");
    expect(s.bare.has("resp")).toBe(true);
    expect(s.bare.has("verb")).toBe(false);
    const ml = parseKlogStructured('"HTTP" verb="GET" resp=500 statusStack=<');
    expect(typeof ml !== "string" && ml.openMultiline).toBe("statusStack");
  });

  it("names the problem of a body that is not structured", () => {
    expect(parseKlogStructured("HTTP verb=LIST")).toMatch(/not a quoted string/);
    expect(parseKlogStructured('"HTTP" verb="LIST')).toMatch(/value of verb: unterminated/);
    expect(parseKlogStructured('"HTTP" verb')).toMatch(/expected key=value at column 8/);
    expect(readQuoted('"a\\x41\\u00e9\\q"', 0)).toMatch(/bad escape \\q/);
    expect(readQuoted('"a\\x41\\u00e9"', 0)).toEqual({ value: "aAé", end: 13 });
  });
});
