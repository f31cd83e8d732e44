/**
 * The error hierarchy. Every error the project raises on purpose carries a string `code` and,
 * where it wraps another failure, `{ cause }`. Messages never contain secrets: callers pass
 * public identifiers (scope, public key, URL without credentials), never the private key or
 * an Authorization header.
 */
export class EventsMirrorError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad configuration or environment: fatal at start, exit code 2. */
export class ConfigError extends EventsMirrorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', message, options);
  }
}

/** Bad command-line arguments: usage is printed, exit code 2. */
export class UsageError extends EventsMirrorError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/**
 * A failure that retrying cannot fix for this scope (401, 403, 404, 400, bad configuration).
 * The scope is reported failed; other scopes continue.
 */
export class PermanentError extends EventsMirrorError {}

/** A failure worth retrying with backoff (429, 5xx, timeouts, resets, cut bodies). */
export class RetryableError extends EventsMirrorError {
  /** Server-requested wait before the next attempt (from Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(code, message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** The warehouse is missing, unmigrated, or newer than this code. */
export class WarehouseError extends EventsMirrorError {}

/**
 * A failure's code for counting failures by kind: an EventsMirrorError's `code`, a system or
 * driver error's (ECONNRESET, a PostgreSQL SQLSTATE), else UNEXPECTED.
 */
export function errorCodeOf(error: unknown): string {
  if (error instanceof EventsMirrorError) return error.code;
  const code: unknown = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? code : 'UNEXPECTED';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What is wrong with a JSON text, from JSON.parse's error, without the quoted source V8 adds to
 * some messages (a file may hold a secret) and on one line.
 */
export function jsonSyntaxProblem(error: unknown): string {
  return errorMessage(error)
    .replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
