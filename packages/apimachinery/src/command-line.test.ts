import { describe, expect, it } from "vitest";
import { optionSpellings, parseCommandLine, UsageError } from "./command-line.js";

const options = {
  port: { type: "string" },
  "kubeconfig-out": { type: "string" },
  tls: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error("expected a UsageError");
}

describe("parseCommandLine", () => {
  it("returns parseArgs' result, typed from the config", () => {
    const { values, positionals } = parseCommandLine({
      args: ["--port", "8080", "--tls", "-h", "x"],
      options,
      allowPositionals: true,
    });
    expect(values).toEqual({ port: "8080", tls: true, help: true });
    const port: string | undefined = values.port;
    expect(port).toBe("8080");
    expect(positionals).toEqual(["x"]);
  });

  it("an unknown option names it and the closest known one", () => {
    const err = usageError(() => parseCommandLine({ args: ["--kubeconfig", "x"], options }));
    expect(err.message).toBe("unknown option --kubeconfig; did you mean --kubeconfig-out?");
    expect(usageError(() => parseCommandLine({ args: ["--prot=1"], options })).message).toBe(
      "unknown option --prot; did you mean --port?",
    );
    expect(usageError(() => parseCommandLine({ args: ["--tls", "--zebra"], options })).message).toBe(
      "unknown option --zebra",
    );
    expect(usageError(() => parseCommandLine({ args: ["-x"], options })).message).toBe(
      "unknown option -x; did you mean -h?",
    );
  });

  it("an option where a value is due is not taken as the value: the message says how to pass one", () => {
    expect(usageError(() => parseCommandLine({ args: ["--port", "--tls"], options })).message).toBe(
      'option --port needs a value (one that starts with "-" is written --port=<value>)',
    );
    expect(parseCommandLine({ args: ["--port=--tls"], options }).values.port).toBe("--tls");
  });

  it("missing values, values given to booleans and unexpected arguments are usage errors naming them", () => {
    expect(usageError(() => parseCommandLine({ args: ["--port"], options })).message).toBe(
      "option --port needs a value",
    );
    expect(usageError(() => parseCommandLine({ args: ["--tls=yes"], options })).message).toBe(
      "option --tls takes no value",
    );
    expect(usageError(() => parseCommandLine({ args: ["stray"], options })).message).toBe(
      'unexpected argument "stray"',
    );
  });

  it("optionSpellings lists long and short spellings", () => {
    expect(optionSpellings(options)).toEqual(["--port", "--kubeconfig-out", "--tls", "--help", "-h"]);
    expect(optionSpellings(undefined)).toEqual([]);
  });
});
