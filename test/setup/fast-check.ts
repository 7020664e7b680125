import fc from "fast-check";

// Property tests are reproducible by default: every run explores the same inputs, so CI is deterministic.
// FC_SEED=<int> picks another fixed seed; FC_SEED=random explores new inputs (a failure prints its seed).
const raw = process.env.FC_SEED ?? "20261122";
if (raw !== "random") {
  const seed = Number.parseInt(raw, 10);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got "${raw}"`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
