/**
 * Kysely's FileMigrationProvider, with the import done from this module. Kysely's own dynamic
 * import runs inside node_modules, which test runners and tsx do not always transform, so a
 * `.ts` migration would fail to load there; importing here goes through the same loader as the
 * rest of the code (tsx, vitest, or compiled `.js` in dist/).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Migration, MigrationProvider } from 'kysely';

const MIGRATION_FILE = /^(?!.*\.d\.[cm]?ts$).*\.(?:[cm]?ts|[cm]?js)$/;

/** The migration files in `folder`, oldest first, each with its migration's name (the file name without extension). */
export async function migrationFiles(folder: string): Promise<{ file: string; name: string }[]> {
  return (await fs.readdir(folder))
    .sort()
    .filter((file) => MIGRATION_FILE.test(file))
    .map((file) => ({ file, name: file.slice(0, file.lastIndexOf('.')) }));
}

export class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly folder: string) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const { file, name } of await migrationFiles(this.folder)) {
      const module = (await import(pathToFileURL(path.join(this.folder, file)).href)) as Partial<Migration> & { default?: Migration };
      const migration = typeof module.up === 'function' ? module : module.default;
      if (!migration || typeof migration.up !== 'function') {
        throw new Error(`migration ${file} exports no up(db) function`);
      }
      migrations[name] = migration as Migration;
    }
    return migrations;
  }
}
