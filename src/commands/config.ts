/** `events-mirror config`: the effective configuration, where each value came from, secrets masked. */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DOTENV_FILE, loadConfigLayers, readDotEnv } from '../config.js';
import { describeConfigSources } from '../config-sources.js';
import { credentialVariables, describeUnknownVariable, unknownVariables } from '../config-env-names.js';
import { renderConfigSources } from '../report/config-sources-report.js';
import { EXIT_OK, action } from './context.js';

interface ConfigFlags {
  json?: boolean;
}

export function registerConfigCommand(program: Command): void {
  program
    .command('config')
    .description('print the effective configuration: each setting, its value (secrets hidden) and where it came from')
    .option('--json', 'one JSON array of {key, value, source} instead of the table')
    .action(action((flags: ConfigFlags) => Promise.resolve(printConfig(flags))));
}

function printConfig(flags: ConfigFlags): number {
  const cwd = process.cwd();
  const dotEnv = readDotEnv(cwd);
  const fromDotEnv = new Set(Object.keys(dotEnv).filter((name) => process.env[name] === undefined));
  const loaded = loadConfigLayers();
  const settings = describeConfigSources(loaded, fromDotEnv);
  const unknown = unknownVariables(loaded.env, credentialVariables(loaded.settings)).map(describeUnknownVariable);
  for (const line of unknown) process.stderr.write(`events-mirror: warning: ${line}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
    return EXIT_OK;
  }
  process.stdout.write(renderConfigSources(settings));
  if (existsSync(DOTENV_FILE)) process.stdout.write(`\n${DOTENV_FILE} of this folder read: the real environment wins over it.\n`);
  return EXIT_OK;
}
