import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/warehouse/sql-statements.js';

describe('splitStatements', () => {
  it('splits on a semicolon outside quotes and comments, leaving empty statements out', () => {
    expect(splitStatements('select 1')).toEqual(['select 1']);
    expect(splitStatements(' select 1 ; ')).toEqual(['select 1']);
    expect(splitStatements('select 1; delete from events')).toEqual(['select 1', 'delete from events']);
    expect(splitStatements(';; -- nothing\n /* at all */ ;')).toEqual([]);
  });

  it('keeps a semicolon inside strings, identifiers, dollar quotes and comments', () => {
    expect(splitStatements(`select 'a;b', "c;d", $$e;f$$, $tag$ $$;$$ $tag$ -- g;h\n from t /* i; /* j; */ k; */`)).toHaveLength(1);
    expect(splitStatements(`select 'it''s; fine'`)).toHaveLength(1);
    expect(splitStatements(`select E'\\'; delete from events'`)).toHaveLength(1);
  });

  it('sees the statements PostgreSQL sees where quoting differs', () => {
    // A backslash is a plain character in a standard string: the quote after it ends the string.
    expect(splitStatements(`select '\\'; delete from events`)).toEqual([`select '\\'`, 'delete from events']);
    // `a$b$` is an identifier, not the start of a dollar quote.
    expect(splitStatements('select 1 as a$b$; delete from events; select $b$')).toHaveLength(3);
    // $1 is a parameter, not a quote.
    expect(splitStatements('select $1; delete from events')).toHaveLength(2);
  });

  it('runs an unterminated quote or comment to the end', () => {
    expect(splitStatements(`select 'a; delete from events`)).toHaveLength(1);
    expect(splitStatements('select 1 /* ; delete from events')).toHaveLength(1);
  });
});
