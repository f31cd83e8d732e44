import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Most events are listed by one feed only, the one their `events` row already names: a
  // membership row for each cost a second insert and two index entries per event on every write.
  // Only the other feeds that list an event are stored now; `event_scopes`, every feed that lists
  // an event, becomes a view over both, with the same columns as before.
  await sql`alter table event_scopes rename to event_other_scopes`.execute(db);
  await sql`alter table event_other_scopes rename constraint event_scopes_pkey to event_other_scopes_pkey`.execute(db);
  await sql`alter index event_scopes_scope_created_idx rename to event_other_scopes_scope_created_idx`.execute(db);
  await sql`delete from event_other_scopes m using events e where e.id = m.event_id and e.scope = m.scope`.execute(db);
  await sql`create view event_scopes as
    select scope, id as event_id, created, ingested_at as first_seen_at from events
    union all
    select scope, event_id, created, first_seen_at from event_other_scopes`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view event_scopes`.execute(db);
  await sql`insert into event_other_scopes (scope, event_id, created, first_seen_at)
    select scope, id, created, ingested_at from events on conflict do nothing`.execute(db);
  await sql`alter index event_other_scopes_scope_created_idx rename to event_scopes_scope_created_idx`.execute(db);
  await sql`alter table event_other_scopes rename constraint event_other_scopes_pkey to event_scopes_pkey`.execute(db);
  await sql`alter table event_other_scopes rename to event_scopes`.execute(db);
}
