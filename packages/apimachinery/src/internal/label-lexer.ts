/**
 * The label selector lexer (`labels.Lexer` in apimachinery pkg/labels/selector.go), ported token for token.
 * Each token also records the offset where it starts so parse errors can point at it.
 */

/** Token kinds (`labels.Token`). */
export type Token =
  | "Error"
  | "EndOfString"
  | "ClosedPar"
  | "Comma"
  | "DoesNotExist"
  | "DoubleEquals"
  | "Equals"
  | "GreaterThan"
  | "Identifier"
  | "In"
  | "LessThan"
  | "NotEquals"
  | "NotIn"
  | "OpenPar";

/** One scanned token (`labels.ScannedItem`) plus its start offset in the input. */
export interface ScannedItem {
  readonly tok: Token;
  readonly literal: string;
  readonly pos: number;
}

// Literal → token for everything except identifiers, end of string and errors (`string2token`).
const string2token: ReadonlyMap<string, Token> = new Map<string, Token>([
  [")", "ClosedPar"],
  [",", "Comma"],
  ["!", "DoesNotExist"],
  ["==", "DoubleEquals"],
  ["=", "Equals"],
  [">", "GreaterThan"],
  ["in", "In"],
  ["<", "LessThan"],
  ["!=", "NotEquals"],
  ["notin", "NotIn"],
  ["(", "OpenPar"],
]);

function isWhitespace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
}

function isSpecialSymbol(ch: string): boolean {
  return ch === "=" || ch === "!" || ch === "(" || ch === ")" || ch === "," || ch === ">" || ch === "<";
}

/**
 * Splits a selector into tokens. Like upstream, a NUL character reads as the end of input (Go's lexer uses 0
 * as its end marker), whitespace is space, tab, CR and LF, and operator characters are `= ! ( ) , > <`.
 */
export class Lexer {
  private pos = 0;

  constructor(private readonly s: string) {}

  // Returns "" at the end of input (without advancing), like upstream's 0 byte; a NUL in the input also
  // reads as "" but is consumed.
  private read(): string {
    if (this.pos >= this.s.length) return "";
    const ch = this.s[this.pos]!;
    this.pos++;
    return ch === "\u0000" ? "" : ch;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIDOrKeyword(start: number): ScannedItem {
    let buffer = "";
    for (;;) {
      const ch = this.read();
      if (ch === "") break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    const tok = string2token.get(buffer);
    return { tok: tok ?? "Identifier", literal: buffer, pos: start };
  }

  private scanSpecialSymbol(start: number): ScannedItem {
    let last: { tok: Token; literal: string } | undefined;
    let buffer = "";
    for (;;) {
      const ch = this.read();
      if (ch === "") break;
      if (isSpecialSymbol(ch)) {
        buffer += ch;
        const tok = string2token.get(buffer);
        if (tok !== undefined) last = { tok, literal: buffer };
        else if (last !== undefined) {
          this.unread();
          break;
        }
      } else {
        this.unread();
        break;
      }
    }
    if (last === undefined) return { tok: "Error", literal: `error expected: keyword found '${buffer}'`, pos: start };
    return { ...last, pos: start };
  }

  /** The next token (`Lexer.Lex`); `EndOfString` forever once the input is exhausted. */
  lex(): ScannedItem {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === "") return { tok: "EndOfString", literal: "", pos: this.pos };
    const start = this.pos - 1;
    this.unread();
    if (isSpecialSymbol(ch)) return this.scanSpecialSymbol(start);
    return this.scanIDOrKeyword(start);
  }
}

/** All tokens of `s` up to and including `EndOfString` (`Parser.scan`). */
export function scan(s: string): ScannedItem[] {
  const lexer = new Lexer(s);
  const items: ScannedItem[] = [];
  for (;;) {
    const item = lexer.lex();
    items.push(item);
    if (item.tok === "EndOfString") return items;
  }
}
