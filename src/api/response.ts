/**
 * Turns one finished HTTP exchange into an events list or a classified error (permanent ApiError
 * or ApiTransientError). Pure: no I/O.
 */
import { ApiError, ApiTransientError, type ApiFailure } from './api-error.js';
import { classifyStatus, parseRetryAfterMs } from './retry-policy.js';
import { envelopedErrorStatus, parseListBody, readErrorFields, type ListBody } from './validate.js';

export type RequestContext = Omit<ApiFailure, 'status' | 'errorCode' | 'detail' | 'bodySnippet'>;

export interface FinishedExchange {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly bodyText: string;
}

const SNIPPET_LENGTH = 300;

/** Returns the list for a 200, throws the classified error otherwise. */
export function interpretResponse(context: RequestContext, exchange: FinishedExchange, nowMs: number, countRequired = true): ListBody {
  const body = parseJson(exchange.bodyText);
  if (exchange.status === 200) {
    if (body === undefined) {
      throw new ApiTransientError(failure(context, exchange, undefined, 200), {
        code: 'BODY_NOT_JSON',
        reason: 'response body is not JSON (cut short?)',
      });
    }
    const envelopedStatus = envelopedErrorStatus(body);
    if (envelopedStatus === undefined) {
      const parsed = parseListBody(body, countRequired);
      if (parsed.ok) return parsed.list;
      throw new ApiTransientError(failure(context, exchange, undefined, 200), {
        code: 'MALFORMED_RESPONSE',
        reason: `response is not an events list: ${parsed.reason}`,
      });
    }
    return throwHttpError(context, exchange, body, envelopedStatus, nowMs);
  }
  return throwHttpError(context, exchange, body, exchange.status, nowMs);
}

function throwHttpError(context: RequestContext, exchange: FinishedExchange, body: unknown, status: number, nowMs: number): never {
  const fields = readErrorFields(body);
  const described = failure(context, exchange, fields, status);
  const policy = classifyStatus(status, fields.errorCode);
  if (!policy.retry) throw new ApiError(described, { code: `API_${fields.errorCode ?? status}` });
  const retryAfterMs = policy.rateLimited ? parseRetryAfterMs(exchange.retryAfter, nowMs) : undefined;
  throw new ApiTransientError(described, {
    code: fields.errorCode ?? `HTTP_${status}`,
    reason: policy.why,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function failure(
  context: RequestContext,
  exchange: FinishedExchange,
  fields: { errorCode: string | undefined; detail: string | undefined } | undefined,
  status: number,
): ApiFailure {
  const text = exchange.bodyText;
  return {
    ...context,
    status,
    errorCode: fields?.errorCode,
    detail: fields?.detail,
    bodySnippet: text === '' ? undefined : text.length > SNIPPET_LENGTH ? `${text.slice(0, SNIPPET_LENGTH)}…` : text,
  };
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
