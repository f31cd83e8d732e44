/** podman with the flags these machines need (test/image/podman.sh), for the image's tests. */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/cli.js';

const SCRIPT = path.join(PROJECT_ROOT, 'test', 'image', 'podman.sh');
const wrapped = (args: readonly string[]) => ['-c', `source '${SCRIPT}' && podman_cmd "$@"`, 'podman', ...args];

export interface PodmanResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs podman to the end; never throws on a non-zero exit. */
export function podman(args: readonly string[], timeoutMs = 600_000): Promise<PodmanResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', wrapped(args), { cwd: PROJECT_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** For cleanup: removes a container whatever its state. */
export function removeContainer(name: string): void {
  spawnSync('bash', wrapped(['rm', '--force', '--time', '0', name]), { cwd: PROJECT_ROOT });
}
