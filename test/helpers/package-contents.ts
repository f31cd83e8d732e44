/**
 * What an installed events-mirror holds, for the tests of the packed package and of the image: the
 * packages a production install must not bring (the lockfile's dev-only ones) and the packages a
 * node_modules folder holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface LockEntry {
  readonly name?: string;
  readonly dev?: boolean;
}

/** The name of the package a lockfile key (`node_modules/a/node_modules/@s/b`) installs. */
function lockKeyName(key: string, entry: LockEntry): string {
  return entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/**
 * The packages the project's lockfile installs only for development (`"dev": true`): the
 * devDependencies and what only they need. A name some production package also uses is left out.
 */
export function devOnlyPackages(projectRoot: string): Set<string> {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const dev = new Set<string>();
  const production = new Set<string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.includes('node_modules/')) continue;
    (entry.dev ? dev : production).add(lockKeyName(key, entry));
  }
  return new Set([...dev].filter((name) => !production.has(name)));
}

/** Every package in a node_modules folder, nested ones included, by name. */
export function installedPackages(nodeModules: string): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const scoped = entry.name.startsWith('@');
      for (const name of scoped ? readdirSync(path.join(dir, entry.name)).map((n) => `${entry.name}/${n}`) : [entry.name]) {
        names.add(name);
        walk(path.join(dir, name, 'node_modules'));
      }
    }
  };
  walk(nodeModules);
  return names;
}

/** Files a package must not ship: tests, fixtures, TypeScript sources, source maps, benchmarks. */
export const NOT_SHIPPED = /(^|\/)(test|tests|fixtures|bench)\/|\.test\.[cm]?[jt]s$|(?<!\.d)\.ts$|\.map$|(^|\/)config\/test\.json$/;
