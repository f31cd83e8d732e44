/**
 * The failures of a `sync --once` pass as the problems a person fixes. Scopes the service refused
 * alike for one credential (a wrong key pair, this host off the key's access list, no role) are one
 * problem: the credential, what the service answered and the fix, in the words `check` uses
 * (api/refusal.ts). Any other failure is a problem of its scope, as it was raised.
 */
import { ApiError } from '../api/api-error.js';
import { describeRefusal, isCredentialRefusal, isRefusal } from '../api/refusal.js';
import { errorMessage } from '../errors.js';
import type { CheckResult } from '../report/check-report.js';
import { plural, withoutRequest } from '../report/shorten.js';
import type { ScopeRunResult } from '../sync/sync-scope.js';

interface Refused {
  readonly credential: string;
  readonly scopes: string[];
  readonly errors: [ApiError, ...ApiError[]];
}

/** `credentialOf`: the name of the credential a scope is read with (`default` for the key pair). */
export function syncProblems(results: readonly ScopeRunResult[], credentialOf: (scope: string) => string): CheckResult[] {
  const problems: Array<CheckResult | Refused> = [];
  const refusals = new Map<string, Refused>();
  for (const result of results) {
    if (result.status !== 'failed') continue;
    const error = result.error;
    if (!isRefusal(error)) {
      // The subject names the scope: the request that failed is left out, the answer and the fix stay.
      const detail = error instanceof ApiError ? describeRefusal([error]) : withoutRequest(errorMessage(error));
      problems.push({ subject: result.scope, outcome: 'problem', detail });
      continue;
    }
    const credential = credentialOf(result.scope);
    // A credential refused outright is one problem; a role missing on several scopes, another.
    const key = `${credential}\u0000${isCredentialRefusal(error) ? 'credential' : error.code}`;
    const seen = refusals.get(key);
    if (seen) {
      seen.scopes.push(result.scope);
      seen.errors.push(error);
    } else {
      const refused: Refused = { credential, scopes: [result.scope], errors: [error] };
      refusals.set(key, refused);
      problems.push(refused);
    }
  }
  return problems.map((p) => ('outcome' in p ? p : refusalProblem(p)));
}

function refusalProblem(refused: Refused): CheckResult {
  const [only, ...more] = refused.scopes;
  const subject =
    more.length === 0
      ? `credential ${refused.credential} on ${only}`
      : `credential ${refused.credential} on ${plural(refused.scopes.length, 'scope')}`;
  return { subject, outcome: 'problem', detail: describeRefusal(refused.errors) };
}
