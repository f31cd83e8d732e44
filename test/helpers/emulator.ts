/**
 * Starts an Events API emulator for a test on 127.0.0.1, port 0, with small fast defaults.
 * Close it in afterAll/afterEach: `await emulator.close()`.
 */
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';

export type { RunningEmulator };

export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ host: '127.0.0.1', port: 0, seed: 42, eventsPerScope: 300, days: 7, ...options });
}

/** The environment a client of this emulator needs (default key = the emulator's first key). */
export function emulatorEnv(emulator: RunningEmulator, keyIndex = 0): Record<string, string> {
  const key = emulator.keys[keyIndex];
  if (!key) throw new Error(`the emulator has no key number ${keyIndex}`);
  return {
    EVENTS_API_BASE_URL: emulator.baseUrl,
    EVENTS_API_PUBLIC_KEY: key.publicKey,
    EVENTS_API_PRIVATE_KEY: key.privateKey,
    EVENTS_SCOPES: emulator.dataset.scopes().join(','),
  };
}
