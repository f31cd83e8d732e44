/**
 * Named credentials: a config file names, never holds, the secrets each one needs (environment
 * variables, or files as Docker and Kubernetes mount them), and scopes say which credential they
 * use. An API key pair authenticates with HTTP Digest; a service account mints OAuth 2.0 tokens.
 * Resolved once at start: a variable that is unset, or a file unreadable or empty, stops the start
 * with a line naming the credential and the fix.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { API_DIALECTS, type ApiDialect } from './api-dialect.js';
import { ConfigError } from './errors.js';

const apiVersion = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a resource version date such as 2023-01-01');
/** Where and how a credential's feeds are read, when not as `api` says (a Cloud Manager org beside an Atlas one). */
const sourceFields = {
  baseUrl: z
    .string()
    .refine((v) => URL.canParse(v) && ['https:', 'http:'].includes(new URL(v).protocol), {
      message: 'expected a URL such as https://cloud.mongodb.com/api/atlas/v2',
    })
    .optional(),
  dialect: z.enum(API_DIALECTS).optional(),
  version: apiVersion.optional(),
};

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as ACME_PRIVATE_KEY');
const filePath = z.string().min(1);

const apiKeySchema = z
  .object({
    type: z.literal('apiKey').default('apiKey'),
    publicKey: z.string().min(1).optional(),
    publicKeyEnv: envName.optional(),
    privateKeyEnv: envName.optional(),
    privateKeyFile: filePath.optional(),
    ...sourceFields,
  })
  .strict();

const serviceAccountSchema = z
  .object({
    type: z.literal('serviceAccount'),
    clientId: z.string().min(1).optional(),
    clientIdEnv: envName.optional(),
    clientSecretEnv: envName.optional(),
    clientSecretFile: filePath.optional(),
    ...sourceFields,
  })
  .strict();

export const CREDENTIAL_NAME = /^[A-Za-z0-9_-]+$/;

export const credentialsSchema = z
  .record(z.string().regex(CREDENTIAL_NAME, 'a credential name is letters, digits, _ and -'), z.union([serviceAccountSchema, apiKeySchema]))
  .default({});

export type CredentialSources = z.output<typeof credentialsSchema>;

/** A credential's own API source settings; each absent one falls back to `api`'s. */
export interface CredentialSource {
  readonly baseUrl?: string;
  readonly dialect?: ApiDialect;
  readonly version?: string;
}

export type Credential = CredentialSource &
  (
    | { readonly kind: 'apiKey'; readonly name: string; readonly publicKey: string; readonly privateKey: string }
    | { readonly kind: 'serviceAccount'; readonly name: string; readonly clientId: string; readonly clientSecret: string }
  );

/** The name scopes use for the key pair of EVENTS_API_PUBLIC_KEY / EVENTS_API_PRIVATE_KEY. */
export const DEFAULT_CREDENTIAL = 'default';

export function resolveCredentials(sources: CredentialSources, env: NodeJS.ProcessEnv): Readonly<Record<string, Credential>> {
  const resolved: Record<string, Credential> = {};
  for (const [name, source] of Object.entries(sources)) {
    if (name === DEFAULT_CREDENTIAL) {
      throw new ConfigError(
        `credentials.${name}: "${DEFAULT_CREDENTIAL}" is the EVENTS_API_PUBLIC_KEY / EVENTS_API_PRIVATE_KEY pair; pick another name`,
      );
    }
    const where = `credentials.${name}`;
    const api: CredentialSource = {
      ...(source.baseUrl !== undefined ? { baseUrl: source.baseUrl } : {}),
      ...(source.dialect !== undefined ? { dialect: source.dialect } : {}),
      ...(source.version !== undefined ? { version: source.version } : {}),
    };
    resolved[name] =
      source.type === 'serviceAccount'
        ? {
            ...api,
            kind: 'serviceAccount',
            name,
            clientId: plainOrEnv(where, 'clientId', source.clientId, source.clientIdEnv, env),
            clientSecret: secret(where, 'clientSecret', source.clientSecretEnv, source.clientSecretFile, env),
          }
        : {
            ...api,
            kind: 'apiKey',
            name,
            publicKey: plainOrEnv(where, 'publicKey', source.publicKey, source.publicKeyEnv, env),
            privateKey: secret(where, 'privateKey', source.privateKeyEnv, source.privateKeyFile, env),
          };
  }
  return resolved;
}

/** A non-secret value, given as is or through a variable. */
function plainOrEnv(where: string, what: string, value: string | undefined, variable: string | undefined, env: NodeJS.ProcessEnv): string {
  if ((value === undefined) === (variable === undefined)) {
    throw new ConfigError(`${where}: give exactly one of ${what} and ${what}Env`);
  }
  if (value !== undefined) return value;
  const fromEnv = env[variable!]?.trim();
  if (!fromEnv) throw new ConfigError(`${where}.${what}Env: ${variable} is not set: set it, or give ${what} in the file`);
  return fromEnv;
}

/** A secret, from a variable (or its `_FILE` twin) or a file; never from the config file itself. */
function secret(where: string, what: string, variable: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv): string {
  if ((variable === undefined) === (file === undefined)) {
    throw new ConfigError(`${where}: give exactly one of ${what}Env and ${what}File (the secret itself never goes in a config file)`);
  }
  if (file !== undefined) return readSecretFile(`${where}.${what}File`, file);
  const value = env[variable!]?.trim();
  const twin = env[`${variable!}_FILE`]?.trim();
  if (value && twin) throw new ConfigError(`both ${variable!} and ${variable!}_FILE are set: keep one`);
  if (value) return value;
  if (twin) return readSecretFile(`${variable!}_FILE`, twin);
  throw new ConfigError(
    `${where}.${what}Env: ${variable!} is not set (nor ${variable!}_FILE): set it to the ${what} of credential ${where.slice(12)}`,
  );
}

/** The file's content without its trailing newline; an unreadable or empty file stops the start. */
export function readSecretFile(what: string, file: string): string {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(
      `${what}=${file}: cannot read the file (${typeof code === 'string' ? code : 'unreadable'}): fix the path or its permissions`,
    );
  }
  const value = content.replace(/\r?\n$/, '');
  if (value.trim() === '') throw new ConfigError(`${what}=${file}: the file is empty: put the secret in it`);
  return value;
}
