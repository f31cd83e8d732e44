/**
 * The version in the installed package's package.json, read when asked (`--version`): the one file
 * a release changes. src/package-version.ts and dist/src/package-version.js sit one and two folders
 * below it, in a checkout and in an installed package alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '..', 'package.json'), path.resolve(here, '..', '..', 'package.json')]) {
    if (!existsSync(candidate)) continue;
    const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
    if (manifest.name === 'events-mirror' && typeof manifest.version === 'string') return manifest.version;
  }
  throw new Error(`no package.json of events-mirror above ${here}: the installed package is incomplete, install it again`);
}
