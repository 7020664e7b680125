// Entry point of the child process memoryStaysBounded starts with --expose-gc: reads its input (JSON) from argv,
// runs the check and prints the result as one JSON line after a marker.
import { type MemoryCheckInput, RESULT_MARKER, runMemoryCheck } from "./memory-check.js";

const raw = process.argv[2];
if (raw === undefined) {
  console.error("memory-child: expected the check's input as JSON in argv[2]");
  process.exitCode = 2;
} else {
  const out = await runMemoryCheck(JSON.parse(raw) as MemoryCheckInput);
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(out)}\n`);
}
