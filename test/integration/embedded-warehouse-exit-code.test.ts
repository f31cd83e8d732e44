/**
 * PGlite's close sets process.exitCode to 0. A run that has already failed and closes its embedded
 * warehouse afterwards must still exit with its code: the test suite's setup did not, and a failed
 * run passed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IN_MEMORY, createWarehouse } from '../../src/warehouse/database.js';

describe('closing the embedded warehouse', () => {
  const before = process.exitCode;
  afterEach(() => {
    process.exitCode = before;
  });

  it('keeps the exit code the process had', async () => {
    const warehouse = await createWarehouse({ schema: 'events_mirror', dataDir: IN_MEMORY });
    process.exitCode = 1;
    await warehouse.close();
    expect(process.exitCode).toBe(1);
  });
});
