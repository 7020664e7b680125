// A JSON value written over several lines (a pretty-printed audit event, as people paste them from `jq .` or the
// audit log's `--audit-log-format` of a webhook backend), gathered line by line until its braces balance.

/** What {@link JsonBlock.push} found: the value is still open, it closed on this line, or it grew too long. */
export type JsonBlockState = "open" | "closed" | "too long";

/**
 * Gathers the lines of one JSON object or array: {@link push} each line (the first one opens it); the value is closed
 * when its brackets, counted outside strings (escapes respected), balance. {@link text} is the lines joined. A value
 * still open after {@link JsonBlock.MAX_LINES} lines is given up ("too long"), so a stray `{` cannot swallow a log.
 */
export class JsonBlock {
  /** Lines a pretty-printed value may span. */
  static readonly MAX_LINES = 10_000;
  private readonly lines: string[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Adds one line; `"closed"` when it closed the value. */
  push(line: string): JsonBlockState {
    this.lines.push(line);
    for (const c of line) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === "\\") this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === "{" || c === "[") this.depth++;
      else if (c === "}" || c === "]") this.depth--;
    }
    if (this.depth <= 0) return "closed";
    return this.lines.length >= JsonBlock.MAX_LINES ? "too long" : "open";
  }

  /** The lines pushed so far, joined with line breaks. */
  get text(): string {
    return this.lines.join("\n");
  }
}
