/**
 * `POST /api/oauth/token` as the service answers it: HTTP Basic with the service account's client
 * id and secret, a form body `grant_type=client_credentials`, and `{access_token, token_type:
 * "Bearer", expires_in}`; OAuth-style errors (`{error, error_description}`) otherwise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKeyGrant } from './keys.js';
import type { TokenIssuer } from './oauth-tokens.js';

export const TOKEN_PATH = '/api/oauth/token';

export interface ServiceAccountGrant {
  clientId: string;
  clientSecret: string;
  roles: ApiKeyGrant['roles'];
}

/** What the role checks read: a service account holds roles as an API key does. */
export function grantOf(account: ServiceAccountGrant): ApiKeyGrant {
  return { publicKey: account.clientId, privateKey: account.clientSecret, roles: account.roles };
}

export async function answerTokenRequest(
  req: IncomingMessage,
  res: ServerResponse,
  accounts: ReadonlyMap<string, ServiceAccountGrant>,
  issuer: TokenIssuer,
): Promise<number> {
  const reply = (status: number, body: object, headers: Record<string, string> = {}) => {
    const bytes = Buffer.from(JSON.stringify(body));
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': String(bytes.length),
      'Cache-Control': 'no-store',
      ...headers,
    });
    res.end(bytes);
    return status;
  };
  const oauthError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
    reply(status, { error, error_description: description }, headers);
  if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'Use POST.', { Allow: 'POST' });
  const body = await readBody(req);
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const account = colon > 0 ? accounts.get(decoded.slice(0, colon)) : undefined;
  if (!account || account.clientSecret !== decoded.slice(colon + 1)) {
    return oauthError(401, 'invalid_client', 'Client authentication failed.', { 'WWW-Authenticate': 'Basic realm="oauth"' });
  }
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
  }
  if (new URLSearchParams(body).get('grant_type') !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
  }
  const issued = issuer.issue(account.clientId);
  if (!issued.ok) {
    return oauthError(
      issued.status,
      issued.error,
      issued.description,
      issued.retryAfterSeconds ? { 'Retry-After': String(issued.retryAfterSeconds) } : {},
    );
  }
  return reply(200, { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16_384) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
