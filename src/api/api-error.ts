/**
 * Errors from the Events API client. They carry what triage needs (scope, method, URL without
 * credentials, status, the service's errorCode and detail, a body snippet) and never a header.
 */
import { PermanentError, RetryableError } from '../errors.js';

export interface ApiFailure {
  /** Scope key, e.g. `group:abc`. */
  readonly scope: string;
  readonly method: string;
  /** Absolute URL without user info. */
  readonly url: string;
  /** Path and query below the base URL, as shown in messages. */
  readonly target: string;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly detail: string | undefined;
  readonly bodySnippet: string | undefined;
}

/** `GET /groups/abc/events?pageNum=2 for group:abc failed: 404 GROUP_NOT_FOUND: No group…` */
export function describeFailure(failure: ApiFailure, reason?: string): string {
  return `${failure.method} ${failure.target} for ${failure.scope} failed: ${describeAnswer(failure, reason)}`;
}

/**
 * What the service answered, without the request: `404 GROUP_NOT_FOUND: No group…`; with
 * `withDetail` false, the status and errorCode only (`reason` when there is no errorCode).
 */
export function describeAnswer(failure: ApiFailure, reason?: string, withDetail = true): string {
  const what = [failure.status, failure.errorCode].filter((part) => part !== undefined).join(' ');
  const detail = withDetail || failure.errorCode === undefined ? (failure.detail ?? reason) : undefined;
  return [what || undefined, detail].filter((part) => part !== undefined && part !== '').join(': ') || 'unknown failure';
}

const NO_ROLE = 'the API key or service account has no role that reads this feed';
/** What a person does about a permanent answer, by the service's errorCode. */
const FIXES: Readonly<Record<string, string>> = {
  USER_CANNOT_ACCESS_GROUP: `${NO_ROLE}: give it Project Read Only on the project, or drop the scope`,
  USER_CANNOT_ACCESS_ORG: `${NO_ROLE}: give it Organization Member of the organization, or drop the scope`,
  IP_ADDRESS_NOT_ON_WHITELIST: "this host's IP address is not on the API key's access list: add it there",
  IP_ADDRESS_NOT_ON_ACCESS_LIST: "this host's IP address is not on the API key's access list: add it there",
  GROUP_NOT_FOUND: 'no project has this id: fix the scope in EVENTS_SCOPES or --scope',
  ORG_NOT_FOUND: 'no organization has this id: fix the scope in EVENTS_SCOPES or --scope',
  RESOURCE_NOT_FOUND:
    "check EVENTS_API_BASE_URL (or the credential's baseUrl): it ends with /api/public/v1.0 (Cloud Manager, Ops Manager), /api/atlas/v1.0 or /api/atlas/v2 (Atlas)",
};

/** What a person does about `failure`, when its errorCode says. */
function fixFor(failure: ApiFailure): string | undefined {
  return failure.errorCode === undefined ? undefined : FIXES[failure.errorCode];
}

/** `… failed: 404 GROUP_NOT_FOUND: No group… (no project has this id: fix …)`. */
export function describeFailureWithFix(failure: ApiFailure): string {
  const fix = fixFor(failure);
  return fix ? `${describeFailure(failure)} (${fix})` : describeFailure(failure);
}

/** Copies exactly the failure's fields onto an error (never anything else a caller may have added). */
function failureFields(failure: ApiFailure): ApiFailure {
  const { scope, method, url, target, status, errorCode, detail, bodySnippet } = failure;
  return { scope, method, url, target, status, errorCode, detail, bodySnippet };
}

// Both error classes carry the ApiFailure fields: declared once here, through interface merging;
// each constructor assigns them all (failureFields), which is what the lint rule cannot see.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface ApiError extends ApiFailure {}

/** A failure retrying cannot fix for this scope: 400, 401, 403, 404, a refused key pair. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class ApiError extends PermanentError {
  /** The reason given when the answer carried no detail (`Digest credentials rejected`). */
  readonly reason: string | undefined;
  /** What a person does about it, when known: the message ends with it in parentheses. */
  readonly fix: string | undefined;

  constructor(failure: ApiFailure, options: { code?: string; message?: string; cause?: unknown; reason?: string; fix?: string } = {}) {
    const fix = options.fix ?? fixFor(failure);
    const described = describeFailure(failure, options.reason);
    super(
      options.code ?? `API_${failure.errorCode ?? failure.status ?? 'FAILURE'}`,
      options.message ?? (fix ? `${described} (${fix})` : described),
      {
        cause: options.cause,
      },
    );
    Object.assign(this, failureFields(failure));
    this.reason = options.reason;
    this.fix = fix;
  }
}

/** The key pair was refused: the Digest answer to a nonce the server had just issued failed. */
export class ApiCredentialsError extends ApiError {
  readonly publicKey: string;

  constructor(failure: ApiFailure, publicKey: string) {
    super(failure, {
      code: 'API_CREDENTIALS_REJECTED',
      reason: 'Digest credentials rejected',
      fix: `the API key with public key ${publicKey} was refused: check EVENTS_API_PUBLIC_KEY and EVENTS_API_PRIVATE_KEY`,
    });
    this.publicKey = publicKey;
  }
}

/**
 * A transient failure (429, 5xx, timeout, reset, cut or malformed body). Thrown between attempts
 * inside the client, and to the caller once attempts or the deadline are spent, so the caller can
 * tell the failure was transient and try the scope again later.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- as ApiError
export interface ApiTransientError extends ApiFailure {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class ApiTransientError extends RetryableError {
  /** Attempts made when the client gave up; 1 for an error raised between attempts. */
  readonly attempts: number;

  constructor(
    failure: ApiFailure,
    options: { code: string; reason?: string; attempts?: number; retryAfterMs?: number; cause?: unknown; message?: string },
  ) {
    super(options.code, options.message ?? describeFailure(failure, options.reason), {
      cause: options.cause,
      retryAfterMs: options.retryAfterMs,
    });
    Object.assign(this, failureFields(failure));
    this.attempts = options.attempts ?? 1;
  }

  /** The same failure, reported after the client stopped retrying. */
  exhausted(attempts: number, elapsedMs: number, why: 'attempts' | 'deadline'): ApiTransientError {
    const limit = why === 'attempts' ? `after ${attempts} attempts` : `after ${attempts} attempts (retry deadline reached)`;
    return new ApiTransientError(this, {
      code: this.code,
      attempts,
      retryAfterMs: this.retryAfterMs,
      cause: this.cause,
      message: `${this.message} (gave up ${limit} in ${Math.round(elapsedMs)} ms)`,
    });
  }
}
