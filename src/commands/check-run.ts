/** `events-mirror check`'s work, loaded when the command runs: check.ts defines its flags. */
import { loadConfigLayers, readDotEnv } from '../config.js';
import { describeConfigSources } from '../config-sources.js';
import { errorMessage } from '../errors.js';
import { checkRedis } from '../queue/redis-check.js';
import { renderCheck, type CheckResult } from '../report/check-report.js';
import { checkApi } from './check-api.js';
import { checkWarehouse } from './check-warehouse.js';
import { EXIT_FAILURE, EXIT_OK, createContext } from './context.js';

export interface CheckFlags {
  json?: boolean;
}

const REDIS_TIMEOUT_MS = 5_000;

export async function runCheck(flags: CheckFlags): Promise<number> {
  const { config, logger } = createContext({
    logFd: 2,
    interactive: true,
    // One quick answer a scope: a check does not wait out a long retry schedule.
    overrides: { api: { maxAttempts: 2, retryDeadlineMs: 30_000 } },
  });
  const [api, warehouse, redis] = await Promise.all([
    checkApi(config, logger).catch((error: unknown) => [problem('API', error)]),
    checkWarehouse(config).catch((error: unknown) => problem('warehouse', error)),
    redisConfigured() ? checkRedisLine(config.redis.url) : Promise.resolve(undefined),
  ]);
  const results = [...api, warehouse, ...(redis ? [redis] : [])];
  process.stdout.write(
    flags.json ? `${JSON.stringify(results, null, 2)}\n` : renderCheck(results, process.stdout.isTTY ? process.stdout.columns : undefined),
  );
  return results.some((r) => r.outcome === 'problem') ? EXIT_FAILURE : EXIT_OK;
}

function problem(subject: string, error: unknown): CheckResult {
  return { subject, outcome: 'problem', detail: errorMessage(error) };
}

async function checkRedisLine(url: string): Promise<CheckResult> {
  const { ok, detail } = await checkRedis(url, REDIS_TIMEOUT_MS);
  return { subject: 'redis', outcome: ok ? 'ok' : 'problem', detail };
}

/**
 * Redis serves the scheduler and workers only; it is checked when this setup names one (REDIS_URL,
 * or redis.url in your config file), not for the project's default a one-process setup never uses.
 */
function redisConfigured(): boolean {
  const fromDotEnv = new Set(Object.keys(readDotEnv(process.cwd())).filter((name) => process.env[name] === undefined));
  const source = describeConfigSources(loadConfigLayers(), fromDotEnv).find((s) => s.key === 'redis.url')?.source;
  return source !== undefined && source !== 'default' && !source.startsWith('config/');
}
