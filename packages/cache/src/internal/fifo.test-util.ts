// Shared fixtures of the FIFO and controller tests (imported only by *.test.ts files).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Delta, Deltas } from "../delta.js";
import type { KeyListerGetter } from "../fifo.js";
import { KeyError, type KeyFunc } from "../store.js";
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "../tombstone.js";

/** client-go's `testFifoObject`: a name (the key) and an arbitrary value. */
export interface FObj {
  readonly name: string;
  readonly val: unknown;
}

/** `mkFifoObj`. */
export function mkFifoObj(name: string, val: unknown): FObj {
  return { name, val };
}

/** `testFifoObjectKeyFunc`: the object's name. */
export const testFifoObjectKeyFunc: KeyFunc = (obj) => {
  if (typeof obj === "object" && obj !== null && typeof (obj as { name?: unknown }).name === "string") {
    return (obj as FObj).name;
  }
  throw new KeyError(`not a test fifo object: ${String(obj)}`, obj);
};

/** A tombstone of a test object. */
export function tomb(key: string, obj: FObj | undefined): DeletedFinalStateUnknown<FObj> {
  return new DeletedFinalStateUnknown<FObj>(key, obj);
}

/** A delta literal, as the FIFOs queue it. */
export function d(type: Delta<FObj>["type"], object: unknown): Delta<FObj> {
  return { type, object } as Delta<FObj>;
}

/** The transformer of the model-based tests: a new object whose value is marked `t:`. */
export function markTransformed(o: FObj): FObj {
  return { name: o.name, val: `t:${String(o.val)}` };
}

/** The key of a queued test object or tombstone. */
export function keyOfObj(o: unknown): string {
  return isDeletedFinalStateUnknown(o) ? o.key : testFifoObjectKeyFunc(o);
}

/** The consumer of the model-based tests: keeps `known` (the FIFO's knownObjects) in step with what was popped. */
export function applyToKnown(known: Map<string, FObj>, deltas: readonly Delta<FObj>[]): void {
  for (const x of deltas) {
    if (x.type === "Deleted") known.delete(keyOfObj(x.object));
    else if (x.type === "ReplacedAll") {
      known.clear();
      for (const o of x.object.objects) known.set(o.name, o);
    } else if (x.type !== "SyncAll" && x.type !== "Bookmark") known.set(x.object.name, x.object);
  }
}

/** A promise that stays pending until `open()` is called (holds a pop's callback, and with it the lock). */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

export function newGate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets pending microtasks and one macrotask turn run (no timer, no virtual time involved). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A pop whose callback records what it got, then waits until `release()` (model-based tests' "hold"). */
export interface HeldPop {
  release(): void;
  /** The pop's promise. */
  readonly done: Promise<unknown>;
  /** The popped deltas (copied) and `isInInitialList`, once the callback ran past the gate. */
  readonly got: [Delta<FObj>[], boolean] | undefined;
}

/** Starts a pop that holds the queue until released; `onPopped` sees the deltas once released. */
export function holdPop(f: Popper<FObj>, onPopped: (deltas: Deltas<FObj>) => void): HeldPop {
  const gate = newGate();
  let got: [Delta<FObj>[], boolean] | undefined;
  const done = f.pop(async (x, initial) => {
    await gate.promise;
    got = [[...x], initial];
    onPopped(x);
  });
  return {
    release: gate.open,
    done,
    get got() {
      return got;
    },
  };
}

/** `literalListerGetter`: known objects listed by a function (called on every lookup). */
export function literalListerGetter(list: () => readonly FObj[]): KeyListerGetter<FObj> {
  return {
    listKeys: () => list().map((o) => o.name),
    getByKey: (key) => list().find((o) => o.name === key),
  };
}

export function emptyKnownObjects(): KeyListerGetter<FObj> {
  return literalListerGetter(() => []);
}

/** Anything that pops. */
export interface Popper<T> {
  readonly length: number;
  pop(process: (deltas: Deltas<T>, isInInitialList: boolean) => void | PromiseLike<void>): Promise<Deltas<T>>;
}

/** Pops once with a no-op callback. */
export function popOnce<T>(f: Popper<T>): Promise<Deltas<T>> {
  return f.pop(() => {});
}

/** Pops once and also returns `isInInitialList` (client-go `pop2`). */
export async function pop2<T>(f: Popper<T>): Promise<[Deltas<T>, boolean]> {
  let initial = false;
  const deltas = await f.pop((_d, isInInitialList) => {
    initial = isInInitialList;
  });
  return [deltas, initial];
}

/** Pops until empty and returns the popped Deltas, one entry per pop. */
export async function drain<T>(f: Popper<T>): Promise<Deltas<T>[]> {
  const out: Deltas<T>[] = [];
  while (f.length > 0) out.push(await popOnce(f));
  return out;
}

/** Pops until empty and concatenates everything (client-go `collapseDeltas(popN(...))`). */
export async function drainFlat<T>(f: Popper<T>): Promise<Delta<T>[]> {
  return (await drain(f)).flat();
}

/** The newest object of a popped Deltas as a test object (client-go `testPop`). */
export function newestObj(deltas: Deltas<FObj>): FObj {
  const d = deltas[deltas.length - 1];
  if (d === undefined) throw new Error("empty deltas");
  const obj = d.object as unknown;
  if (isDeletedFinalStateUnknown(obj)) throw new Error(`newest object is a tombstone for ${obj.key}`);
  return obj as FObj;
}

// ---------------------------------------------------------------------------------------------------------
// GC child: runs an ES module script in `node --expose-gc`, importing this repository's TypeScript sources
// through a tiny loader (TypeScript's transpileModule; `@informer-ts/<pkg>` → packages/<pkg>/src/index.ts).

const here = dirname(fileURLToPath(import.meta.url));
/** `file:` URL of a source file of this package, for `import` statements in a GC child script. */
export function cacheSourceUrl(relative: string): string {
  return pathToFileURL(resolve(here, "..", relative)).href;
}

const hooksSource = (typescriptUrl: string, packagesDir: string) => `
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from ${JSON.stringify(typescriptUrl)};
const packages = ${JSON.stringify(packagesDir)};
export async function resolve(specifier, context, next) {
  const m = /^@informer-ts\\/([a-z-]+)$/.exec(specifier);
  if (m) return { url: pathToFileURL(packages + "/" + m[1] + "/src/index.ts").href, shortCircuit: true };
  if (context.parentURL?.endsWith(".ts") && /^\\.\\.?\\//.test(specifier) && specifier.endsWith(".js")) {
    const url = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.endsWith(".ts")) return next(url, context);
  const file = fileURLToPath(url);
  const out = ts.transpileModule(readFileSync(file, "utf8"), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  return { format: "module", source: out.outputText, shortCircuit: true };
}
`;

/**
 * Runs `script` (an ES module whose last stdout line is JSON) in a child `node --expose-gc` and returns that
 * JSON. Used by the memory tests whether or not this worker has `global.gc`, so they never skip.
 */
export function runGcChild(script: string): unknown {
  const dir = mkdtempSync(join(tmpdir(), "informer-fifo-gc-"));
  try {
    const typescriptUrl = pathToFileURL(createRequire(import.meta.url).resolve("typescript")).href;
    const packagesDir = resolve(here, "..", "..", "..");
    writeFileSync(join(dir, "hooks.mjs"), hooksSource(typescriptUrl, packagesDir));
    writeFileSync(
      join(dir, "register.mjs"),
      'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
    );
    writeFileSync(join(dir, "child.mjs"), script);
    const stdout = execFileSync(
      process.execPath,
      ["--expose-gc", "--import", pathToFileURL(join(dir, "register.mjs")).href, join(dir, "child.mjs")],
      { encoding: "utf8", timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const lines = stdout.trim().split("\n");
    return JSON.parse(lines[lines.length - 1] as string);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
