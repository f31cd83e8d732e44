/**
 * Attempts to write through a read-only SQL connection (`sql`, `sync --serve-sql`), issue 43's and
 * more: each a script of statements a client sends one at a time; `attack` is the one the guard
 * must refuse (the others are harmless or fail on their own once it is refused). Every script
 * targets the mirror's own tables, so a write that got through shows in `warehouseFingerprint`.
 */
export interface WriteAttempt {
  readonly name: string;
  readonly before?: readonly string[];
  readonly attack: string;
  readonly after?: readonly string[];
}

const INSERT_SCOPE = `insert into scopes (scope, kind, scope_id, origin) values ('group:x', 'group', 'x', 'configured')`;

/** `copyTarget`: a file the attack overwrites (on the embedded warehouse, the events table's own file). */
export function writeAttempts(copyTarget: string): WriteAttempt[] {
  return [
    { name: 'a comment inside READ WRITE', attack: 'begin transaction read/**/write', after: [INSERT_SCOPE, 'commit'] },
    {
      name: 'SET TRANSACTION READ WRITE with a comment',
      before: ['begin'],
      attack: 'set transaction read/**/write',
      after: ['delete from events', 'commit'],
    },
    {
      name: 'a Unicode-escaped transaction_read_only',
      before: ['begin'],
      attack: 'set U&"transaction\\005fread\\005fonly" = off',
      after: [INSERT_SCOPE, 'commit'],
    },
    { name: 'SET SESSION CHARACTERISTICS', attack: 'set session characteristics as transaction read write', after: ['delete from events'] },
    { name: 'default_transaction_read_only', attack: 'set default_transaction_read_only = off', after: ['delete from events'] },
    { name: 'RESET ALL lifting the read-only default', attack: 'reset all', after: ['delete from events'] },
    { name: 'set_config', attack: `select set_config('default_transaction_read_only', 'off', false)`, after: ['delete from events'] },
    {
      name: 'set_config of transaction_read_only',
      before: ['begin'],
      attack: `select set_config('transaction_read_only', 'off', true)`,
      after: ['delete from events', 'commit'],
    },
    { name: 'COPY TO a file', attack: `copy (select 'garbage') to '${copyTarget}'` },
    { name: 'ALTER SYSTEM', attack: `alter system set client_encoding = 'LATIN1'` },
    { name: 'SET ROLE', attack: 'set role pg_read_all_data', after: ['select count(*) from events'] },
    { name: 'SET SESSION AUTHORIZATION', attack: 'set session authorization pg_read_all_data', after: ['select 1'] },
    { name: 'lo_export', attack: `select lo_export(0, '${copyTarget}')` },
    { name: 'lo_import', attack: `select lo_import('/etc/hostname')` },
    { name: 'pg_read_file', attack: `select pg_read_file('/etc/hostname')` },
    { name: 'a data-modifying CTE', attack: 'with gone as (delete from events returning 1) select count(*) from gone' },
    { name: 'a data-modifying CTE, nested', attack: `select * from (with x as (${INSERT_SCOPE} returning 1) select * from x) y` },
    { name: 'EXPLAIN ANALYZE of a delete', attack: 'explain analyze delete from events' },
    { name: 'SELECT INTO', attack: 'select * into events_copy from events' },
    { name: 'FOR UPDATE', attack: 'select * from events for update' },
    { name: 'PREPARE', attack: 'prepare wipe as delete from events', after: ['execute wipe'] },
    { name: 'EXECUTE', attack: 'execute wipe' },
    { name: 'DO', attack: 'do $$ begin delete from events; end $$' },
    { name: 'DO with dollar-quoted tags', attack: 'do $body$ begin execute $q$delete from events$q$; end $body$' },
    { name: 'query_to_xml running a statement', attack: `select query_to_xml('delete from events returning 1', true, true, '')` },
    { name: 'a function in another schema', attack: 'select public.anything()' },
    { name: 'a quoted upper-case function name', attack: `select "SET_CONFIG"('default_transaction_read_only', 'off', false)` },
    { name: 'DISCARD ALL', attack: 'discard all' },
    { name: 'CREATE TABLE', attack: 'create table events_copy (id text)' },
    { name: 'TRUNCATE', attack: 'truncate events' },
    { name: 'LOCK', attack: 'lock table events' },
    { name: 'nextval', attack: `select nextval('sync_runs_id_seq')` },
    { name: 'NOTIFY', attack: 'notify events_mirror' },
    { name: 'LISTEN', attack: 'listen events_mirror' },
    { name: 'CALL', attack: 'call anything()' },
    { name: 'LOAD', attack: `load 'plpgsql'` },
    { name: 'PREPARE TRANSACTION', before: ['begin'], attack: `prepare transaction 'x'`, after: ['rollback'] },
    { name: 'a cursor WITH HOLD', attack: 'declare c cursor with hold for select * from events' },
  ];
}

/** What a write would change: every mirror table's rows, as one text to compare. */
export const WAREHOUSE_FINGERPRINT_SQL = `select
  (select count(*) || ':' || coalesce(md5(string_agg(id || event_type_name || payload::text, ',' order by id)), '') from events) as events,
  (select count(*) || ':' || coalesce(md5(string_agg(scope || origin, ',' order by scope)), '') from scopes) as scopes,
  (select count(*) from pg_class where relname = 'events_copy') as copies,
  current_user as role, current_setting('default_transaction_read_only') as read_only`;
