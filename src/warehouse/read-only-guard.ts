/**
 * The read-only guard of `sql` and `sync --serve-sql`: a statement runs only if PostgreSQL's own
 * parser (libpg_query, PostgreSQL 17's grammar compiled to WebAssembly) reads it as an allowed kind
 * calling only allowed functions and setting only allowed settings (read-only-rules.ts). It judges
 * the parse tree PostgreSQL will execute, not the text: comments inside keywords, Unicode-escaped
 * identifiers (U&"…"), dollar quoting and letter case reach it already resolved. Text the parser
 * cannot read is refused too, so a grammar newer than the parser's fails closed.
 *
 * The READ ONLY transaction each statement runs in stays as a second wall behind it.
 */
import { loadModule, parseSync } from 'libpg-query';
import {
  ALLOWED_FUNCTION_NAMES,
  ALLOWED_SETTINGS,
  ALLOWED_STATEMENTS,
  ALLOWED_TRANSACTION_KINDS,
  ALLOWED_TRANSACTION_OPTIONS,
  CLIENT_ENCODINGS,
} from './read-only-rules.js';

export interface Verdict {
  /** How many statements the text holds (0 for an empty query). */
  readonly statements: number;
  /** Why a statement of it is refused; undefined when every one may run. */
  readonly refusal?: string;
}

type Node = Record<string, unknown>;

/** Declared WITH HOLD: the cursor outlives its transaction (PostgreSQL's CURSOR_OPT_HOLD). */
const CURSOR_OPT_HOLD = 0x20;

let loaded: Promise<void> | undefined;

/** Parses `text` and judges each of its statements. */
export async function judgeReadOnly(text: string): Promise<Verdict> {
  await (loaded ??= loadModule());
  // The package refuses empty text before PostgreSQL's parser sees it; PostgreSQL reads it as no statement.
  if (text.trim() === '') return { statements: 0 };
  let tree: { stmts?: Array<{ stmt: Node }> };
  try {
    tree = parseSync(text) as typeof tree;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { statements: 0, refusal: `PostgreSQL's parser cannot read this statement (${message}); nothing ran` };
  }
  const statements = tree.stmts ?? [];
  for (const { stmt } of statements) {
    const refusal = statementRefusal(stmt);
    if (refusal) return { statements: statements.length, refusal };
  }
  return { statements: statements.length };
}

function statementRefusal(stmt: Node): string | undefined {
  const [kind, body] = only(stmt);
  if (!(kind in ALLOWED_STATEMENTS)) return `${statementName(kind)} statements are refused`;
  if (kind === 'TransactionStmt') return transactionRefusal(body);
  if (kind === 'VariableSetStmt') return settingRefusal(body);
  if (kind === 'DeclareCursorStmt' && ((body.options as number | undefined) ?? 0) & CURSOR_OPT_HOLD)
    return 'a cursor WITH HOLD outlives its transaction and is refused: declare it without HOLD';
  return treeRefusal(body);
}

/** Anywhere under an allowed statement: no other statement, no INTO, no locking clause, no unlisted function. */
function treeRefusal(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const refusal = treeRefusal(item);
      if (refusal) return refusal;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value as Node)) {
    if (key.endsWith('Stmt') && key !== 'SelectStmt') return `${statementName(key)} inside another statement (WITH, EXPLAIN) is refused`;
    if (key === 'intoClause') return 'SELECT … INTO creates a table and is refused';
    if (key === 'lockingClause') return 'FOR UPDATE / FOR SHARE locks rows for a write and is refused';
    if (key === 'FuncCall') {
      const refusal = functionRefusal(child as Node);
      if (refusal) return refusal;
    }
    const refusal = treeRefusal(child);
    if (refusal) return refusal;
  }
  return undefined;
}

function functionRefusal(call: Node): string | undefined {
  const parts = (call.funcname as Node[]).map((part) => (part.String as { sval: string }).sval);
  const name = parts[parts.length - 1]!;
  const schema = parts.length > 1 ? parts[0] : undefined;
  if ((schema === undefined || schema === 'pg_catalog') && parts.length <= 2 && ALLOWED_FUNCTION_NAMES.has(name)) return undefined;
  return `function ${parts.join('.')}() is not on the read-only list (it may write, read files or change the session)`;
}

function transactionRefusal(body: Node): string | undefined {
  if (!ALLOWED_TRANSACTION_KINDS.has(body.kind as string)) return `${String(body.kind).replace('TRANS_STMT_', '')} TRANSACTION is refused`;
  return transactionOptionsRefusal(body.options);
}

function transactionOptionsRefusal(options: unknown): string | undefined {
  for (const option of (options as Node[] | undefined) ?? []) {
    const { defname, arg } = option.DefElem as { defname: string; arg?: Node };
    if (!(defname in ALLOWED_TRANSACTION_OPTIONS)) return `transaction option ${defname} is refused`;
    if (defname === 'transaction_read_only' && constantOf(arg) !== 1) return 'READ WRITE is refused: this connection only reads';
  }
  return undefined;
}

function settingRefusal(body: Node): string | undefined {
  const name = body.name as string | undefined;
  if (body.kind === 'VAR_RESET_ALL')
    return "RESET ALL is refused (it would lift the session's read-only default): reset one setting by name";
  if (body.kind === 'VAR_SET_MULTI') {
    if (name !== 'TRANSACTION') return `SET ${name} is refused`;
    return transactionOptionsRefusal(body.args);
  }
  if (name === undefined || !(name in ALLOWED_SETTINGS)) return `setting ${name ?? '?'} may not be changed on a read-only connection`;
  if (name === 'client_encoding' && body.kind === 'VAR_SET_VALUE') {
    const value = constantOf((body.args as Node[] | undefined)?.[0]);
    if (typeof value !== 'string' || !CLIENT_ENCODINGS.has(value.toLowerCase())) return 'client_encoding may only be UTF8';
  }
  return undefined;
}

/** An A_Const's value: a number (0 when the parser omits it), a string, or undefined. */
function constantOf(node: Node | undefined): number | string | undefined {
  const constant = node?.A_Const as { ival?: { ival?: number }; sval?: { sval?: string } } | undefined;
  if (!constant) return undefined;
  if (constant.ival) return constant.ival.ival ?? 0;
  return constant.sval?.sval;
}

function only(node: Node): [string, Node] {
  const [entry] = Object.entries(node);
  return [entry![0], entry![1] as Node];
}

/** `AlterSystemStmt` → `ALTER SYSTEM`. */
function statementName(kind: string): string {
  return kind
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}
