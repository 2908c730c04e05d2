/*
 * UTC instants as epoch milliseconds and back, without `Date` (the domain reads no clock, and
 * its lint fence keeps `Date` out). Only the form `toISOString()` writes, or `…Z` with fewer
 * digits, is read: times recorded by this service are always that form.
 */

const ISO_Z = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?Z$/u;
const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The proleptic Gregorian [year, month, day] of a day number (the inverse of daysFromCivil). */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Epoch milliseconds of a UTC ISO instant, or null when `iso` is not one. */
export function utcMillis(iso: string): number | null {
  const m = ISO_Z.exec(iso);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '0'] = m;
  const ms = Number(`${frac}00`.slice(0, 3));
  return (
    daysFromCivil(Number(y), Number(mo), Number(d)) * DAY_MS +
    ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 +
    ms
  );
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The `toISOString()` form of epoch milliseconds. */
export function utcIso(millis: number): string {
  const days = Math.floor(millis / DAY_MS);
  let rest = millis - days * DAY_MS;
  const [y, m, d] = civilFromDays(days);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const mi = Math.floor(rest / 60_000);
  rest -= mi * 60_000;
  const s = Math.floor(rest / 1000);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}.${pad(rest - s * 1000, 3)}Z`;
}
