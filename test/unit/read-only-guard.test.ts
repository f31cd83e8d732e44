/**
 * The read-only guard (issue 43) judges PostgreSQL's parse tree: what BI tools and psql send
 * passes; every write attempt of the corpus is refused however it is spelled (comments inside
 * keywords, Unicode-escaped identifiers, dollar quoting, letter case); text the parser cannot
 * read is refused.
 */
import { describe, expect, it } from 'vitest';
import { judgeReadOnly } from '../../src/warehouse/read-only-guard.js';
import { WAREHOUSE_FINGERPRINT_SQL, writeAttempts } from '../helpers/write-attempts.js';

describe('judgeReadOnly', () => {
  it('lets reads, SHOW, harmless settings and transaction control through', async () => {
    const reads = [
      'select count(*) from events',
      `select date_trunc('day', created) as day, count(*) from events where created > now() - interval '7 days' group by 1 order by 1`,
      `select payload->>'clusterName', jsonb_typeof(payload) from events where id = $1 limit 10`,
      'with recent as (select * from events order by created desc limit 5) select id from recent',
      'table events',
      'values (1), (2)',
      'explain (analyze, format json) select * from events',
      'show all',
      "set time zone 'UTC'",
      'set application_name = grafana',
      'set extra_float_digits = 3',
      'set client_encoding = UTF8',
      'reset timezone',
      'begin',
      'begin isolation level repeatable read read only',
      'set transaction isolation level serializable, read only, deferrable',
      'savepoint a',
      'rollback to savepoint a',
      'commit',
      'declare c cursor for select * from events',
      'fetch 100 from c',
      'close c',
      `select extract(epoch from created), trim(event_type_name), created at time zone 'UTC', substring(id from 2) from events`,
      WAREHOUSE_FINGERPRINT_SQL,
      '',
      '-- nothing',
    ];
    for (const text of reads) expect(await judgeReadOnly(text), text).not.toHaveProperty('refusal');
  });

  it('refuses every write attempt of the corpus, whatever its spelling', async () => {
    for (const attempt of writeAttempts('/tmp/x')) {
      const verdict = await judgeReadOnly(attempt.attack);
      expect(verdict.refusal, attempt.name).toBeTypeOf('string');
    }
    const spelled = [
      'BEGIN TRANSACTION READ/* a */WRITE',
      'begin transaction read --x\n write',
      'SeT U&"default\\005ftransaction\\005fread\\005fonly" tO OfF',
      'set "role" = pg_read_all_data',
      'SELECT Set_Config($1, $2, false)',
      'select pg_catalog.set_config($1, $2, false)',
      'select lo_export($1, $2)',
      "select 1 from events where pg_catalog.pg_terminate_backend(1) and pg_catalog.pg_read_file('x') is not null",
      'SET standard_conforming_strings = off',
      "set names 'SJIS'",
      'set search_path = public',
    ];
    for (const text of spelled) expect((await judgeReadOnly(text)).refusal, text).toBeTypeOf('string');
  });

  it('names what it refuses', async () => {
    expect(await judgeReadOnly('begin transaction read/**/write')).toEqual({
      statements: 1,
      refusal: 'READ WRITE is refused: this connection only reads',
    });
    expect(await judgeReadOnly("copy (select 1) to '/tmp/x'")).toEqual({ statements: 1, refusal: 'COPY statements are refused' });
    expect(await judgeReadOnly('alter system set work_mem = 1')).toEqual({ statements: 1, refusal: 'ALTER SYSTEM statements are refused' });
    expect((await judgeReadOnly("select set_config('a', 'b', false)")).refusal).toBe(
      'function set_config() is not on the read-only list (it may write, read files or change the session)',
    );
    expect((await judgeReadOnly('with x as (delete from events returning 1) select 1')).refusal).toBe(
      'DELETE inside another statement (WITH, EXPLAIN) is refused',
    );
    expect(await judgeReadOnly('select 1; select 2')).toEqual({ statements: 2 });
    expect((await judgeReadOnly('select )')).refusal).toBe(
      `PostgreSQL's parser cannot read this statement (syntax error at or near ")"); nothing ran`,
    );
  });
});
