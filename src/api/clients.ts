/**
 * One API client per credential, made on first use: each key pair has its own Digest session and
 * each service account its own token, so a 401 for one never touches the others.
 */
import { DEFAULT_CREDENTIAL } from '../credentials.js';
import { ConfigError, PermanentError } from '../errors.js';
import type { EventsClient } from './client.js';

export class ApiClients {
  readonly #make: (credential: string) => EventsClient;
  readonly #clients = new Map<string, EventsClient>();

  constructor(make: (credential: string) => EventsClient) {
    this.#make = make;
  }

  /** Every request through one client (the demo, tests). */
  static single(client: EventsClient): ApiClients {
    return new ApiClients(() => client);
  }

  /** The client for a scope's credential (absent: the default key pair). A credential this process does not define fails the scope, not the process. */
  for(credential: string = DEFAULT_CREDENTIAL): EventsClient {
    let client = this.#clients.get(credential);
    if (!client) {
      try {
        client = this.#make(credential);
      } catch (error) {
        if (error instanceof ConfigError) throw new PermanentError('CREDENTIAL_UNAVAILABLE', error.message, { cause: error });
        throw error;
      }
      this.#clients.set(credential, client);
    }
    return client;
  }

  /** Throws while any client's last requests all went unanswered (the worker's /healthz). */
  assertAnswering(): void {
    for (const client of this.#clients.values()) client.reachability.assertAnswering();
  }

  /**
   * Readiness: every client's API answers (recently, or a probe within `timeoutMs`). Before any
   * job made a client, the default key pair's is probed, when this process has one.
   */
  async probe(timeoutMs: number): Promise<void> {
    if (this.#clients.size === 0) {
      try {
        this.for();
      } catch (error) {
        if (error instanceof PermanentError) return;
        throw error;
      }
    }
    await Promise.all([...new Set(this.#clients.values())].map((client) => client.probe(timeoutMs)));
  }

  async close(): Promise<void> {
    await Promise.all([...new Set(this.#clients.values())].map((client) => client.close()));
  }
}
