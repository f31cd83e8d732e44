/**
 * Where the suite's services are: the one place every test reads its PostgreSQL and Redis URLs from.
 * Child processes started by tests get them through their environment (`REDIS_URL`, `DATABASE_URL`).
 */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
