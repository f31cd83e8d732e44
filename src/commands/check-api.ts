/**
 * `check`'s API part: one small request for each configured scope, with the credential the scope
 * is read with. The first request of a credential is also its round trip (a Digest exchange, or a
 * service account's token): a refused credential (its key pair, its token, this host's address on
 * its access list) is one problem, and its other scopes are not asked. A scope the credential
 * cannot read is a problem naming the role it needs.
 */
import { createEventsClient } from '../api/client.js';
import type { EventsClient } from '../api/client.js';
import { ApiTransientError } from '../api/api-error.js';
import { describeRefusal, isCredentialRefusal, isRefusal } from '../api/refusal.js';
import { requireScopes, type Config, type ScopeSettings } from '../config.js';
import { DEFAULT_CREDENTIAL } from '../credentials.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CheckResult } from '../report/check-report.js';

/** Scopes asked at once: a fleet's thousands are checked in minutes, within the rate limits. */
const CONCURRENCY = 8;
/** How far back the one request looks: any answer, even an empty page, proves the access. */
const LOOK_BACK_MS = 3_600_000;

export async function checkApi(config: Config, logger: Logger): Promise<CheckResult[]> {
  const byCredential = new Map<string, ScopeSettings[]>();
  for (const settings of requireScopes(config)) {
    const name = settings.credential ?? DEFAULT_CREDENTIAL;
    byCredential.set(name, [...(byCredential.get(name) ?? []), settings]);
  }
  const results: CheckResult[] = [];
  for (const [name, scopes] of byCredential) {
    let client: EventsClient;
    try {
      client = createEventsClient(config, { logger }, name);
    } catch (error) {
      results.push({ subject: `credential ${name}`, outcome: 'problem', detail: errorMessage(error) });
      continue;
    }
    try {
      results.push(...(await checkCredential(client, name, scopes)));
    } finally {
      await client.close();
    }
  }
  return results;
}

async function checkCredential(client: EventsClient, name: string, scopes: readonly ScopeSettings[]): Promise<CheckResult[]> {
  const credential = `credential ${name}`;
  // The first scope alone: if the credential is refused, the others are not asked.
  const [first, ...rest] = scopes;
  const firstResult = await checkScope(client, first!);
  if (firstResult.credentialRefused) {
    return [
      { subject: credential, outcome: 'problem', detail: firstResult.detail },
      ...scopes.map((s) => ({ subject: s.scope.key, outcome: 'skipped' as const, detail: `not asked: ${credential} was refused` })),
    ];
  }
  const results: CheckResult[] = [
    { subject: credential, outcome: 'ok', detail: `${describeClient(client)}: authenticated` },
    firstResult.result,
  ];
  for (let i = 0; i < rest.length; i += CONCURRENCY) {
    const batch = await Promise.all(rest.slice(i, i + CONCURRENCY).map((s) => checkScope(client, s)));
    results.push(...batch.map((b) => b.result));
  }
  return results;
}

/** `public key abc at https://…/api/public/v1.0 (v1)`: never a secret (EventsClient.toJSON holds none). */
function describeClient(client: EventsClient): string {
  const { baseUrl, dialect, publicKey } = client.toJSON() as { baseUrl: string; dialect: string; publicKey: string };
  return `${publicKey} at ${baseUrl} (${dialect})`;
}

interface ScopeOutcome {
  readonly result: CheckResult;
  readonly credentialRefused: boolean;
  readonly detail: string;
}

async function checkScope(client: EventsClient, settings: ScopeSettings): Promise<ScopeOutcome> {
  const subject = settings.scope.key;
  try {
    const page = await client.listEvents(settings.scope, { minDate: new Date(Date.now() - LOOK_BACK_MS), itemsPerPage: 1 });
    const detail = `readable (${page.events.length === 0 ? 'no event in the last hour' : 'events in the last hour'})`;
    return { result: { subject, outcome: 'ok', detail }, credentialRefused: false, detail };
  } catch (error) {
    // A refusal in the words sync --once uses for it; anything else as it was raised.
    const detail = isRefusal(error) ? describeRefusal([error]) : errorMessage(error);
    const credentialRefused = isCredentialRefusal(error);
    const transient = error instanceof ApiTransientError ? ' (a transient failure: try again later)' : '';
    return { result: { subject, outcome: 'problem', detail: `${detail}${transient}` }, credentialRefused, detail };
  }
}
