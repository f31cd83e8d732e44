/**
 * An actor as a reader tells it apart: an API key's public key (`woqusqv`) reads like a user name,
 * so wherever one is shown, it says it is a key. `actor_kind` is the report views' (`api_key`,
 * `user`).
 */
const KIND_WORDS: Readonly<Record<string, string>> = { api_key: 'API key', user: 'user' };

/** `API key`, `user`: the kind column's words. */
export function actorKindWords(kind: string | null): string | null {
  return kind === null ? null : (KIND_WORDS[kind] ?? kind);
}

/** `woqusqv (API key)`, or a user's name as it is, in a column that names actors without their kind. */
export function actorLabel(actor: string, kind: string | null): string {
  return kind === 'api_key' ? `${actor} (API key)` : actor;
}
