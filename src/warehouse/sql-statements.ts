/**
 * Splits SQL text into its statements the way PostgreSQL's lexer sees them: a `;` ends a statement
 * only outside string literals ('…', E'…' with backslash escapes), quoted identifiers ("…"),
 * dollar-quoted bodies ($tag$…$tag$), line comments (-- …) and block comments (nested /* … *\/).
 * Used to refuse several statements in one string (`sql`, the served warehouse). When in doubt
 * it sees more statements, never fewer: an unterminated quote or comment runs to the end.
 */

/** The statements of `text`, each trimmed, empty ones (`;;`, comments only) left out. */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let meaningful = false;
  let i = 0;
  const push = (end: number) => {
    if (meaningful) statements.push(text.slice(start, end).trim());
    start = end + 1;
    meaningful = false;
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '/' && next === '*') {
      i = blockCommentEnd(text, i);
    } else if (c === ';') {
      push(i);
      i += 1;
    } else if (c === "'") {
      meaningful = true;
      i = quotedEnd(text, i + 1, "'", isEscapeString(text, i));
    } else if (c === '"') {
      meaningful = true;
      i = quotedEnd(text, i + 1, '"', false);
    } else if (c === '$' && !isIdentifierChar(text[i - 1])) {
      meaningful = true;
      const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? text.length : end + tag[0].length;
      } else {
        i += 1;
      }
    } else if (isIdentifierChar(c)) {
      // A whole word at once: `a$b$` is an identifier, not the start of a dollar quote.
      meaningful = true;
      while (i < text.length && isIdentifierChar(text[i])) i += 1;
    } else {
      if (!/\s/.test(c)) meaningful = true;
      i += 1;
    }
  }
  push(text.length);
  return statements;
}

function isIdentifierChar(c: string | undefined): boolean {
  return c !== undefined && /[\w$\u0080-\uffff]/.test(c);
}

/** `E'…'` (or `e'…'`) as a word of its own: backslash escapes apply. */
function isEscapeString(text: string, quote: number): boolean {
  const before = text[quote - 1];
  return (before === 'E' || before === 'e') && !isIdentifierChar(text[quote - 2]);
}

function quotedEnd(text: string, from: number, quote: string, backslashEscapes: boolean): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return text.length;
}

function blockCommentEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth += 1;
      i += 2;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  return text.length;
}
