/**
 * The CLI as plain JavaScript, built once per test run, so each of the suite's CLI children starts
 * with `node <dir>/src/cli.js` instead of loading tsx and its esbuild service per spawn (about 2.5
 * times the CPU for each start). esbuild transpiles each file on its own (no bundling), as tsx does
 * when it loads them: the same code a `--import tsx` child runs. The folder mirrors the project's
 * layout (src/, migrations/, config/ and node_modules/ beside them), so the CLI finds its
 * configuration and migrations the way `dist/` does.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** The folders tsconfig.build.json compiles, without the AssemblyScript sources (src/wasm, src/<layer>/wasm). */
function sources(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'wasm') walk(full);
      } else if (/\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name)) {
        files.push(full);
      }
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'migrations'));
  return files;
}

/** Transpiles the project at `root` into `outDir`; returns the CLI's entry (`<outDir>/src/cli.js`). */
export async function buildCli(root: string, outDir: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: sources(root),
    outdir: outDir,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    // Beside the files, not inline: a child runs without --enable-source-maps, as `npx events-mirror`
    // does, and parsing an inline map in each module it loads cost about 0.1 CPU-s a start.
    sourcemap: 'linked',
    logLevel: 'silent',
    absWorkingDir: root,
  });
  // The name and version `--version` reads (src/package-version.ts), and ES modules as in the project.
  const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ name, version, type: 'module' }));
  for (const linked of ['node_modules', 'config']) symlinkSync(path.join(root, linked), path.join(outDir, linked), 'dir');
  return path.join(outDir, 'src', 'cli.js');
}
