/**
 * `npm run bench`: runs every benchmark under test/bench one after another, each in its own
 * process so their memory figures do not mix, and prints their output.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((pattern) => name.includes(pattern)))
  .sort();

let failed = 0;
for (const name of benches) {
  process.stdout.write(`\n== ${name}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, name)], {
    stdio: 'inherit',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  if (result.status !== 0) {
    failed += 1;
    process.stdout.write(`!! ${name} failed (exit ${result.status ?? result.signal})\n`);
  }
}
process.stdout.write(`\n${benches.length - failed} of ${benches.length} benchmarks ran\n`);
process.exitCode = failed === 0 ? 0 : 1;
