/**
 * The error messages the CLI can print for configuration, arguments and the warehouse, read from
 * the source with TypeScript's parser (no hand list): the message of every `new ConfigError(…)`,
 * `new UsageError(…)`, `new WarehouseError(code, …)` and commander `new InvalidArgumentError(…)`
 * under src/, and the messages zod schemas give their checks in the modules that turn zod issues
 * into ConfigErrors. A message is a list of literal parts and holes (what varies at run time).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from './cli.js';

export const HOLE: unique symbol = Symbol('hole');
export type MessagePart = string | typeof HOLE;

export interface SourceMessage {
  /** `src/config.ts:272`. */
  readonly where: string;
  readonly parts: readonly MessagePart[];
}

/** The error classes whose messages a user meets as one line and exit 2 (or 1, the warehouse). */
const MESSAGE_ARGUMENT: Readonly<Record<string, number>> = {
  ConfigError: 0,
  UsageError: 0,
  InvalidArgumentError: 0,
  WarehouseError: 1,
};
const ZOD_CHECKS = new Set(['regex', 'min', 'max', 'length', 'refine', 'superRefine', 'int', 'positive', 'nonnegative']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'wasm' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Joins parts, merging neighbouring literals and neighbouring holes. */
function concat(...lists: ReadonlyArray<readonly MessagePart[]>): MessagePart[] {
  const out: MessagePart[] = [];
  for (const part of lists.flat()) {
    const last = out.at(-1);
    if (typeof part === 'string' && typeof last === 'string') out[out.length - 1] = last + part;
    else if (part === HOLE && last === HOLE) continue;
    else if (part !== '') out.push(part);
  }
  return out;
}

class MessageReader {
  private readonly functions = new Map<string, ts.FunctionLikeDeclaration>();
  private readonly variables = new Map<string, ts.Expression>();

  constructor(
    private readonly file: ts.SourceFile,
    private readonly exported: ReadonlyMap<string, ts.Expression>,
  ) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionDeclaration(node) && node.name) this.functions.set(node.name.text, node);
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
        const init = node.initializer;
        if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) this.functions.set(node.name.text, init);
        else this.variables.set(node.name.text, init);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  /** The forms an expression's text can take; a part computed at run time is a hole. */
  read(node: ts.Expression, depth = 0): MessagePart[][] {
    if (depth > 6) return [[HOLE]];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [[node.text]];
    if (ts.isParenthesizedExpression(node)) return this.read(node.expression, depth);
    if (ts.isTemplateExpression(node)) {
      let forms: MessagePart[][] = [[node.head.text]];
      for (const span of node.templateSpans) {
        // A constant in the hole (SCOPE_FORM) is part of the text; anything computed stays a hole.
        const inner = this.read(span.expression, depth + 1);
        const filling: readonly MessagePart[] = inner.length === 1 && !inner[0]!.includes(HOLE) ? inner[0]! : [HOLE];
        forms = forms.map((form) => concat(form, filling, [span.literal.text]));
      }
      return forms;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = this.read(node.left, depth + 1);
      const right = this.read(node.right, depth + 1);
      return left.flatMap((l) => right.map((r) => concat(l, r)));
    }
    if (ts.isConditionalExpression(node)) return [...this.read(node.whenTrue, depth + 1), ...this.read(node.whenFalse, depth + 1)];
    if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap((e) => this.read(e, depth + 1));
    if (ts.isIdentifier(node)) {
      const value = this.variables.get(node.text) ?? this.exported.get(node.text);
      return value ? this.read(value, depth + 1) : [[HOLE]];
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const fn = this.functions.get(node.expression.text);
      if (fn) return this.returned(fn, depth + 1);
    }
    return [[HOLE]];
  }

  /** What a function of this file returns, through the functions nested in it. */
  private returned(fn: ts.FunctionLikeDeclaration, depth: number): MessagePart[][] {
    if (fn.body && !ts.isBlock(fn.body)) return this.read(fn.body, depth);
    const forms: MessagePart[][] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isReturnStatement(node) && node.expression) forms.push(...this.read(node.expression, depth));
      else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) forms.push(...this.read(node.body, depth));
      ts.forEachChild(node, visit);
    };
    if (fn.body) ts.forEachChild(fn.body, visit);
    return forms.length > 0 ? forms : [[HOLE]];
  }
}

function constructedMessages(file: ts.SourceFile, reader: MessageReader, relative: string): SourceMessage[] {
  const found: SourceMessage[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text in MESSAGE_ARGUMENT) {
      const argument = node.arguments?.[MESSAGE_ARGUMENT[node.expression.text]!];
      if (argument) {
        const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        for (const parts of reader.read(argument)) found.push({ where: `${relative}:${line}`, parts });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The messages a zod schema gives its checks: `.regex(re, 'msg')`, `.refine(fn, { message })` … */
function zodMessages(file: ts.SourceFile, reader: MessageReader, relative: string): SourceMessage[] {
  const found: SourceMessage[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ZOD_CHECKS.has(node.expression.name.text)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      for (const argument of node.arguments.slice(1)) {
        let message: ts.Expression | undefined = argument;
        if (ts.isObjectLiteralExpression(argument)) {
          const property = argument.properties.find(
            (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'message',
          );
          message = property?.initializer;
        }
        if (message && (ts.isStringLiteralLike(message) || ts.isTemplateExpression(message))) {
          for (const parts of reader.read(message)) found.push({ where: `${relative}:${line}`, parts });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every message of src/ a user can meet as a configuration, argument or warehouse error. */
export function cliErrorMessages(): SourceMessage[] {
  const files = sourceFiles(path.join(PROJECT_ROOT, 'src')).map((full) => {
    const relative = path.relative(PROJECT_ROOT, full);
    const text = readFileSync(full, 'utf8');
    return { relative, text, file: ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true) };
  });
  // Exported string constants (SCOPE_FORM …), which other modules' messages name.
  const exported = new Map<string, ts.Expression>();
  for (const { file } of files) {
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (ts.isIdentifier(declaration.name) && init && (ts.isStringLiteralLike(init) || ts.isTemplateExpression(init))) {
          exported.set(declaration.name.text, init);
        }
      }
    }
  }
  return files.flatMap(({ relative, text, file }) => {
    const reader = new MessageReader(file, exported);
    const constructed = constructedMessages(file, reader, relative);
    const turnsZodIntoConfigErrors = /from 'zod'/.test(text) && constructed.length > 0;
    return [...constructed, ...(turnsZodIntoConfigErrors ? zodMessages(file, reader, relative) : [])];
  });
}

/** The literal text a message must show, at least: messages of holes and punctuation only say nothing. */
export function literalLength(parts: readonly MessagePart[]): number {
  return parts.reduce<number>((sum, part) => sum + (typeof part === 'string' ? part.replace(/[^\p{L}\p{N}]/gu, '').length : 0), 0);
}

/** A pattern matching the message with anything in its holes, whitespace runs as one space. */
export function messagePattern(parts: readonly MessagePart[]): RegExp {
  const source = parts
    .map((part) =>
      part === HOLE
        ? '[\\s\\S]*?'
        : part
            .trim()
            .split(/\s+/)
            .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('\\s+'),
    )
    .join(parts.length > 1 ? '\\s*' : '');
  return new RegExp(source);
}

export function describeMessage(parts: readonly MessagePart[]): string {
  return parts.map((part) => (part === HOLE ? '<…>' : part)).join('');
}
