/**
 * Numbers as a person reads them in the HTML report: sizes in KB/MB/GB, durations as "3 h 20 min",
 * a metric's value in its own units, timestamps in a short form that fits a table cell. Pure.
 */

const decimal = (digits: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits });
const whole = decimal(0);

/** 4742517045.45 → "4.4 GB" (binary multiples, as the service's metrics are). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${decimal(unit === 0 || Math.abs(value) >= 100 ? 0 : 1).format(value)} ${units[unit]}`;
}

/** 12000 → "3 h 20 min"; "45 s" under a minute; "2 d 4 h" past a day. */
export function formatDurationWords(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

const SIZE_FACTORS: Readonly<Record<string, number>> = {
  BYTES: 1,
  KILOBYTES: 1024,
  MEGABYTES: 1024 ** 2,
  GIGABYTES: 1024 ** 3,
  TERABYTES: 1024 ** 4,
};
const TIME_FACTORS: Readonly<Record<string, number>> = { MILLISECONDS: 0.001, SECONDS: 1, MINUTES: 60, HOURS: 3600, DAYS: 86_400 };

/** A metric's value with its units (`currentValue.units`) as a person reads it. */
export function formatMetricValue(value: number, units: string | null): string {
  const unit = (units ?? '').toUpperCase();
  const size = SIZE_FACTORS[unit];
  if (size !== undefined) return formatBytes(value * size);
  const time = TIME_FACTORS[unit];
  if (time !== undefined) return value * time < 1 ? `${decimal(0).format(value * time * 1000)} ms` : formatDurationWords(value * time);
  if (unit === 'PERCENT') return `${decimal(1).format(value)} %`;
  if (unit === 'MEGABITS') return `${decimal(1).format(value)} Mbit/s`;
  const number = Math.abs(value) >= 100 ? whole.format(value) : decimal(2).format(value);
  return unit === '' || unit === 'RAW' ? number : `${number} ${unit.toLowerCase()}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 27 06:38" in UTC: short enough to stay on one line of a table cell. */
export function shortTimestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[date.getUTCMonth()]} ${two(date.getUTCDate())} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}`;
}

/** "Nov 27" in UTC. */
export function shortDay(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, '0')}`;
}
