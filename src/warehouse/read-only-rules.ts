/**
 * What a read-only SQL client may run (`sql`, `sync --serve-sql`), as data: read-only-guard.ts
 * checks PostgreSQL's parse tree of each statement against these lists and refuses everything else.
 * Each entry carries why it is safe; whatever is not listed is refused, so a new PostgreSQL
 * statement, setting or function is refused until someone adds it here with its reason.
 */

/** Statement kinds (parse-tree node names) a client may run, with why each cannot write. */
export const ALLOWED_STATEMENTS: Readonly<Record<string, string>> = {
  SelectStmt: 'SELECT, VALUES and TABLE read; INTO, FOR UPDATE/SHARE and data-modifying WITH are refused inside it',
  ExplainStmt: 'EXPLAIN (ANALYZE too) of a statement that itself passes this guard: it plans or runs a read',
  VariableShowStmt: 'SHOW reads a setting',
  TransactionStmt: 'BEGIN, COMMIT, ROLLBACK and savepoints; READ WRITE and two-phase commit are refused',
  VariableSetStmt: 'SET and RESET of the settings listed in ALLOWED_SETTINGS only, and SET TRANSACTION without READ WRITE',
  DeclareCursorStmt: "DECLARE of a cursor over a read (psql's FETCH_COUNT); WITH HOLD, which outlives the transaction, is refused",
  FetchStmt: 'FETCH and MOVE read from a cursor declared above',
  ClosePortalStmt: 'CLOSE ends a cursor',
};

/**
 * Settings a client may SET or RESET, with why each changes only how its own answers look or how
 * long its own statements may run. Refused, among all others: role and session_authorization
 * (privilege), default_transaction_read_only and transaction_read_only (they lift read-only),
 * search_path (it decides which function a name in ALLOWED_FUNCTIONS calls, and the mirror's own
 * statements rely on it), standard_conforming_strings, backslash_quote and client_encoding other
 * than UTF8 (they change how PostgreSQL reads a statement's text, so it could read another statement
 * than the one this guard read).
 */
export const ALLOWED_SETTINGS: Readonly<Record<string, string>> = {
  application_name: 'the name a tool gives itself in logs',
  timezone: 'how timestamps with time zone are shown (SET TIME ZONE)',
  datestyle: 'how dates are shown',
  intervalstyle: 'how intervals are shown',
  extra_float_digits: 'how floats are shown (JDBC and other drivers set it)',
  bytea_output: 'how bytea is shown',
  client_min_messages: 'which notices the client receives',
  lc_monetary: 'to_char formatting of money',
  lc_numeric: 'to_char formatting of numbers',
  lc_time: 'to_char formatting of dates',
  statement_timeout: "ends the client's own statements (no effect in the embedded warehouse)",
  lock_timeout: "ends the client's own statements waiting for a lock",
  client_encoding: 'UTF8 only: the encoding this guard reads statements in',
};

/** The only client_encoding a client may ask for (any spelling PostgreSQL accepts for it). */
export const CLIENT_ENCODINGS = new Set(['utf8', 'utf-8', 'unicode']);

/** SET TRANSACTION / BEGIN options, with why each is harmless; transaction_read_only only as READ ONLY. */
export const ALLOWED_TRANSACTION_OPTIONS: Readonly<Record<string, string>> = {
  transaction_isolation: 'how the transaction sees concurrent writes',
  transaction_deferrable: 'whether a serializable read-only transaction may wait for a safe snapshot',
  transaction_read_only: 'READ ONLY only: READ WRITE is refused',
};

/** Transaction statements allowed; PREPARE TRANSACTION and COMMIT/ROLLBACK PREPARED are refused (they outlive the session). */
export const ALLOWED_TRANSACTION_KINDS = new Set([
  'TRANS_STMT_BEGIN',
  'TRANS_STMT_START',
  'TRANS_STMT_COMMIT',
  'TRANS_STMT_ROLLBACK',
  'TRANS_STMT_SAVEPOINT',
  'TRANS_STMT_RELEASE',
  'TRANS_STMT_ROLLBACK_TO',
]);

export interface FunctionGroup {
  readonly why: string;
  readonly names: readonly string[];
  /** pg_proc marks them volatile; `why` says why that is harmless (test/unit checks the rest are not). */
  readonly volatile?: true;
}

/**
 * Functions a client may call (by name, unqualified or in pg_catalog; every overload), grouped with
 * why each group cannot write, read files or change the session. Everything else is refused: among
 * them set_config, lo_*, pg_read_*, pg_ls_*, pg_stat_file, pg_terminate_backend, pg_reload_conf,
 * dblink, query_to_xml (it runs a statement given as text), nextval, pg_sleep and pg_advisory_*.
 */
export const ALLOWED_FUNCTIONS: readonly FunctionGroup[] = [
  {
    why: 'aggregates and window functions: they fold or rank the rows a read returns',
    names: words(
      'count sum avg min max array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg bool_and bool_or every bit_and bit_or stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp regr_slope regr_intercept percentile_cont percentile_disc mode any_value row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value',
    ),
  },
  {
    why: 'dates and times: computed from their arguments or the transaction clock',
    names: words(
      'now date_trunc date_part extract date_bin age to_char to_date to_timestamp make_date make_time make_timestamp make_timestamptz make_interval justify_days justify_hours justify_interval timezone isfinite transaction_timestamp statement_timestamp date_add date_subtract overlaps',
    ),
  },
  {
    why: 'text: computed from their arguments',
    names: words(
      'lower upper initcap length char_length character_length octet_length bit_length substring substr position strpos replace translate split_part concat concat_ws format left right btrim ltrim rtrim lpad rpad repeat reverse starts_with overlay regexp_replace regexp_match regexp_matches regexp_split_to_array regexp_split_to_table regexp_count regexp_like regexp_substr regexp_instr md5 sha256 encode decode quote_ident quote_literal quote_nullable chr ascii to_hex string_to_array string_to_table normalize is_normalized unistr convert_from convert_to to_number like_escape similar_escape',
    ),
  },
  {
    why: 'numbers: computed from their arguments',
    names: words(
      'abs round ceil ceiling floor trunc sign mod power pow sqrt cbrt exp ln log log10 div gcd lcm width_bucket scale numeric int4 int8 float8',
    ),
  },
  {
    why: 'JSON: computed from their arguments (the payload column is jsonb)',
    names: words(
      'to_json to_jsonb json_build_object jsonb_build_object json_build_array jsonb_build_array json_object jsonb_object jsonb_array_elements jsonb_array_elements_text json_array_elements json_array_elements_text jsonb_array_length json_array_length jsonb_each jsonb_each_text json_each json_each_text jsonb_object_keys json_object_keys jsonb_typeof json_typeof jsonb_extract_path jsonb_extract_path_text json_extract_path json_extract_path_text jsonb_pretty jsonb_strip_nulls json_strip_nulls jsonb_set jsonb_insert jsonb_path_query jsonb_path_query_array jsonb_path_query_first jsonb_path_exists jsonb_path_match jsonb_to_record jsonb_to_recordset row_to_json array_to_json',
    ),
  },
  {
    why: 'arrays and sets: computed from their arguments',
    names: words(
      'unnest generate_series array_length array_upper array_lower array_ndims array_dims cardinality array_to_string array_append array_prepend array_cat array_remove array_replace array_position array_positions array_fill trim_array',
    ),
  },
  {
    why: "the catalogue and the session, read: what psql's \\d commands and BI tools ask",
    names: words(
      'version current_database current_schema current_schemas current_setting current_user session_user pg_backend_pid pg_postmaster_start_time format_type pg_get_userbyid pg_table_is_visible pg_type_is_visible pg_function_is_visible pg_get_expr pg_get_viewdef pg_get_indexdef pg_get_constraintdef pg_get_triggerdef pg_get_function_arguments pg_get_function_result pg_get_function_identity_arguments pg_get_statisticsobjdef_columns pg_get_partkeydef pg_get_serial_sequence pg_relation_is_publishable pg_encoding_to_char obj_description col_description shobj_description has_table_privilege has_schema_privilege has_column_privilege has_database_privilege pg_has_role pg_typeof pg_size_pretty pg_column_size pg_collation_for txid_current_if_assigned to_regclass to_regtype to_regproc',
    ),
  },
  {
    why: 'sizes of tables and indexes (pg_proc marks them volatile: they read a file size, never a file)',
    volatile: true,
    names: words('pg_relation_size pg_total_relation_size pg_table_size pg_indexes_size pg_database_size'),
  },
  {
    why: 'random numbers for sampling and the wall clock (volatile: each call gives another value; nothing is stored)',
    volatile: true,
    names: words('random gen_random_uuid clock_timestamp'),
  },
];

function words(text: string): readonly string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

/** Every allowed function name, for the guard's look-up. */
export const ALLOWED_FUNCTION_NAMES: ReadonlySet<string> = new Set(ALLOWED_FUNCTIONS.flatMap((group) => group.names));
