/**
 * The second wall behind the read-only guard (issue 43): whatever a served client's turn changed in
 * the embedded warehouse's one session, the mirror gets its own session back when the turn ends:
 * the role and the session user (which RESET ALL leaves alone: a role left set made the sync's next
 * pass fail "permission denied for table sync_state"), the read-only default, settings and cursors.
 * The turn here runs statements straight on the session, as if the guard had let them through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { IN_MEMORY, createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { ClientTurns, type TurnHolder } from '../../src/warehouse/served-turns.js';
import { parseMessage, bindMessage, executeMessage, syncMessage } from '../../src/warehouse/wire-messages.js';

describe('a served turn ends with the mirror session restored', () => {
  let warehouse: Warehouse;
  let turns: ClientTurns;

  beforeAll(async () => {
    warehouse = await createWarehouse({ schema: 'events_mirror', dataDir: IN_MEMORY });
    await warehouse.pglite!.client.exec('create schema if not exists events_mirror; create table events_mirror.written (a int)');
    turns = await ClientTurns.open(warehouse.pglite!, silentLogger());
    // Opening PGlite takes 15 to 60 s on the shared machine.
  }, 180_000);

  afterAll(async () => {
    await turns?.close();
    await warehouse?.close();
  });

  it('resets the role, the session user, settings and cursors for the mirror', async () => {
    const client: TurnHolder = { endForLimit: () => undefined, stalledSince: undefined };
    const run = async (statement: string) => {
      for (const message of [parseMessage(statement), bindMessage(), executeMessage('', 0)]) await turns.backend(message);
    };
    await turns.run(client, async () => {
      await run('set session authorization pg_read_all_data');
      await run('set role pg_read_all_data');
      await run(`set search_path = pg_catalog`);
      await run('set statement_timeout = 1');
      const answer = await turns.backend(syncMessage());
      return answer.at(-1)![5] === 0x49;
    });
    const session = await warehouse.pglite!.client.query<Record<string, string>>(
      `select current_user as role, session_user as "user", current_setting('search_path') as search_path,
              current_setting('statement_timeout') as timeout, current_setting('default_transaction_read_only') as read_only`,
    );
    expect(session.rows[0]).toEqual({ role: 'postgres', user: 'postgres', search_path: 'events_mirror', timeout: '0', read_only: 'off' });
    // The mirror writes again (as pg_read_all_data: permission denied).
    await warehouse.pglite!.client.exec('insert into written values (1)');
  });
});
