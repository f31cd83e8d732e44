/**
 * Turns on the embedded warehouse's one PGlite session between the served SQL clients and the
 * mirror (PgliteSession's gate). A client's turn starts with its first message and ends when
 * PGlite answers ReadyForQuery outside a transaction; meanwhile the mirror and the other clients
 * wait, and while the mirror holds the session (a transaction's whole length) clients wait.
 *
 * Each turn runs with `default_transaction_read_only = on`, and after it the session is restored
 * for the mirror, the role and session user included (the guard refuses setting them; this is the
 * second wall). Once the mirror waits, a client may hold the session CLIENT_TURN_LIMIT_MS at most
 * with a transaction open, or without reading the rows it asked for: then its transaction is rolled
 * back and its connection ended with a FATAL error (SQLSTATE 25P03, as PostgreSQL's own
 * idle_in_transaction_session_timeout does), so it never goes on out of step with the server.
 */
import type { Logger } from '../logger.js';
import type { PgliteSession } from './pglite-session.js';
import { quoteIdentifier } from './identifier.js';
import { MessageReader } from './wire-messages.js';

/** How long a client may keep a transaction open (or leave its rows unread) while the mirror waits. */
export const CLIENT_TURN_LIMIT_MS = 15_000;

const TERMINATE = new Uint8Array([0x58, 0, 0, 0, 4]);

/** What the turns need of a client connection. */
export interface TurnHolder {
  /** Ends the connection after its turn was taken: a FATAL error, then close. */
  endForLimit(message: string): void;
  /** Since when the client has not read what it was sent, if it has not. */
  readonly stalledSince: number | undefined;
}

interface Turn {
  readonly holder: TurnHolder;
  readonly end: () => void;
  readonly startedAt: number;
}

export class ClientTurns {
  private turn: Turn | undefined;
  private executing = false;
  private readonly timer: NodeJS.Timeout;

  /**
   * RESET ALL leaves the role and the session user alone, and PGlite's RESET SESSION AUTHORIZATION
   * does not go back to its user (single-user mode has no authenticated one): the user the session
   * has now, the mirror's, is set again by name after each turn.
   */
  static async open(session: PgliteSession, logger: Logger): Promise<ClientTurns> {
    const { rows } = await session.client.query<{ user: string }>('select session_user as "user"');
    const restore = `SET SESSION AUTHORIZATION ${quoteIdentifier(rows[0]!.user)}; RESET ROLE; RESET ALL; CLOSE ALL; ${session.setSearchPath}`;
    return new ClientTurns(session, logger, restore);
  }

  private constructor(
    private readonly session: PgliteSession,
    private readonly logger: Logger,
    private readonly restoreSession: string,
  ) {
    this.timer = setInterval(() => void this.enforceLimit(), 1000);
    this.timer.unref();
  }

  /** One protocol message on the session; its answer as messages. */
  readonly backend = async (message: Buffer): Promise<Buffer[]> => {
    const client = this.session.client;
    const reader = new MessageReader(false);
    const answer: Buffer[] = [];
    await client.runExclusive(async () => {
      await client.execProtocolRawStream(message, { onRawData: (data: Uint8Array) => answer.push(...reader.push(data)) });
      // PGlite (0.4) also parses every message it answers into a list that only its execProtocol
      // empties: over a turn's batches that list would hold the whole result. A Terminate through
      // execProtocol empties it and runs nothing (PGlite returns at once on one).
      await client.execProtocol(TERMINATE, { syncToFs: false });
    });
    return answer;
  };

  holds(holder: TurnHolder): boolean {
    return this.turn?.holder === holder;
  }

  inTransaction(holder: TurnHolder): boolean {
    return this.holds(holder) && this.session.client.isInTransaction();
  }

  /** Runs `work` in `holder`'s turn (waiting for it); `work` says whether the turn may end. */
  async run(holder: TurnHolder, work: () => Promise<boolean>): Promise<void> {
    if (!this.holds(holder)) {
      const end = await this.session.gate.acquire();
      this.turn = { holder, end, startedAt: Date.now() };
      await this.session.client.exec('SET default_transaction_read_only = on');
    }
    this.executing = true;
    let idle = false;
    try {
      idle = await work();
    } catch (error) {
      await this.endTurn(true);
      throw error;
    } finally {
      this.executing = false;
    }
    if (idle) await this.endTurn(false);
  }

  /** The connection closed: its turn, if it has one and no message of it runs, ends. */
  async leave(holder: TurnHolder): Promise<void> {
    if (this.holds(holder) && !this.executing) await this.endTurn(true);
  }

  /** Back to the mirror's session: the client's settings and open transaction gone. */
  private async endTurn(abandoned: boolean): Promise<void> {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    const client = this.session.client;
    try {
      if (abandoned) {
        // Ends an extended-protocol exchange left half way, then the transaction it left open.
        await client.execProtocolRaw(new Uint8Array([0x53, 0, 0, 0, 4]));
        if (client.isInTransaction()) await client.exec('ROLLBACK');
      }
      await client.exec(this.restoreSession);
    } catch (error) {
      this.logger.error({ err: error }, 'could not reset the embedded warehouse session after a SQL client');
    } finally {
      turn.end();
    }
  }

  private async enforceLimit(): Promise<void> {
    const turn = this.turn;
    if (!turn || this.session.gate.queued === 0) return;
    const now = Date.now();
    const stalled = turn.holder.stalledSince;
    if (this.executing ? stalled === undefined || now - stalled < CLIENT_TURN_LIMIT_MS : now - turn.startedAt < CLIENT_TURN_LIMIT_MS)
      return;
    const what = this.executing ? 'left the rows it asked for unread' : 'kept a transaction open';
    this.logger.warn(`a SQL client ${what} over ${CLIENT_TURN_LIMIT_MS / 1000} s while the mirror waited: rolled back, connection ended`);
    const message =
      `events-mirror ended this connection: it ${what} over ${CLIENT_TURN_LIMIT_MS / 1000} s while the mirror waited for the warehouse, ` +
      'and its transaction was rolled back; reconnect and run it again, shorter';
    // A message running (rows unread) ends when the connection closes; then run() ends the turn.
    if (!this.executing) await this.endTurn(true);
    turn.holder.endForLimit(message);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (!this.executing) await this.endTurn(true);
  }
}
