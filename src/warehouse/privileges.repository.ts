/**
 * What the mirror's database role may not do in its schema: `check` names each missing privilege
 * with the GRANT that gives it, before a sync fails on the first write. PostgreSQL only (the
 * embedded warehouse has one all-powerful user).
 */
import { sql } from 'kysely';
import type { Warehouse } from './database.js';

export interface MissingPrivilege {
  /** `schema events_mirror`, or a table or sequence name. */
  readonly object: string;
  readonly privilege: string;
}

const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;

export async function missingPrivileges(warehouse: Warehouse): Promise<{ role: string; missing: MissingPrivilege[] }> {
  const schema = warehouse.schema;
  const { rows: roleRows } = await sql<{ role: string; usage: boolean }>`
    select current_user as role, has_schema_privilege(${schema}, 'USAGE') as usage`.execute(warehouse.db);
  const { role, usage } = roleRows[0]!;
  if (!usage) return { role, missing: [{ object: `schema ${schema}`, privilege: 'USAGE' }] };
  const { rows } = await sql<{ object: string; privilege: string }>`
    select c.relname as object, p.privilege
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join unnest(${sql.val([...TABLE_PRIVILEGES])}::text[]) as p(privilege)
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and not has_table_privilege(c.oid, p.privilege)
    union all
    select c.relname, 'USAGE'
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    -- PostgreSQL may call the function before the relkind test: guarded, it sees sequences only.
    where n.nspname = ${schema} and c.relkind = 'S'
      and not (case when c.relkind = 'S' then has_sequence_privilege(c.oid, 'USAGE') else true end)
    order by 1, 2`.execute(warehouse.db);
  return { role, missing: rows };
}
