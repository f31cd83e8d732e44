/**
 * Every URL the mirror prints or logs goes through here (`config`, `check`, log lines, errors), so
 * no secret a URL can carry reaches a screen or a log. Pure.
 *
 * A URL carries secrets in its password (`postgres://user:secret@…`), in its query
 * (`?password=`, `?sslpassword=`, `?token=`, `?access_token=`, `?sig=` …) and in its fragment
 * (`#access_token=`). Query names are open-ended: each driver, proxy and gateway reads its own, so
 * a list of secret names would fail open at the next name nobody thought of. Every query value is
 * masked instead, except the few settings known to carry none (listed below with where they come
 * from): the names stay, so a reader still sees what is set.
 */

export const MASK = '****';

/** Query settings that never carry a secret, shown as they are. */
const HARMLESS_QUERY_NAMES = new Set([
  // libpq / pg connection settings
  'sslmode',
  'application_name',
  'connect_timeout',
  'target_session_attrs',
  // ioredis
  'family',
  'db',
]);

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** `user:password@host` without a scheme (a proxy written as curl accepts it). */
const BARE_USERINFO = /^([^\s/@:]*):[^\s/@]*@/;

/**
 * `text` with its password, every query value but the harmless ones and its fragment replaced by
 * `****`. Text that is not a URL is returned as it is, but for a `user:password@` prefix; text that
 * starts like a URL and does not parse is hidden whole (it may hold a password we cannot find).
 */
export function maskUrl(text: string): string {
  if (!HAS_SCHEME.test(text)) return text.replace(BARE_USERINFO, `$1:${MASK}@`);
  if (!URL.canParse(text)) return `(hidden: not a valid URL)`;
  const url = new URL(text);
  if (url.password) url.password = MASK;
  if (url.search) {
    const masked = [...url.searchParams].map(([name, value]): [string, string] =>
      HARMLESS_QUERY_NAMES.has(name.toLowerCase()) ? [name, value] : [name, value === '' ? '' : MASK],
    );
    url.search = new URLSearchParams(masked).toString().replaceAll(encodeURIComponent(MASK), MASK);
  }
  if (url.hash) url.hash = MASK;
  return url.toString();
}

/** `scheme://host:port/path`: where a URL points, with no user name, password, query or fragment. */
export function urlLocation(text: string, fallback: string): string {
  if (!URL.canParse(text)) return fallback;
  const url = new URL(text);
  return `${url.protocol}//${url.host || 'localhost'}${url.pathname === '/' ? '' : url.pathname}`;
}
