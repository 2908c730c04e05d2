/**
 * Calendar arithmetic on civil (wall-clock) dates. Occurrence times are calendar facts of the
 * speaker ("yesterday" is the day before *their* today), so everything here works on
 * year/month/day in the message's own UTC offset. Pure integer arithmetic: no `Date`, so no
 * clock and no dependence on the machine's time zone.
 */
import { civilFromDays, daysFromCivil } from '@stratagate/domain';

export interface CivilDate {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
}

/** The moment a message was written, as the writer's wall clock showed it. */
export interface MentionTime {
  date: CivilDate;
  hour: number;
  minute: number;
  second: number;
  /** Minutes east of UTC; a timestamp without an offset is UTC (MM-GEN-1). */
  offsetMinutes: number;
}

export interface CivilRange {
  start: CivilDate;
  end: CivilDate;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/iu;

/** Reads an ISO-8601 timestamp; anything else (or an impossible date) is null, never "now". */
export function parseMentionTime(text: string): MentionTime | null {
  const m = ISO.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const date = { year, month, day };
  if (!isValidDate(date) || hour > 23 || minute > 59 || second > 59) return null;
  const offsetMinutes = parseOffset(m[7]);
  if (offsetMinutes === null) return null;
  // The written date and time already are the writer's wall clock; the offset only matters
  // when an instant is written back as UTC.
  return { date, hour, minute, second, offsetMinutes };
}

function parseOffset(raw: string | undefined): number | null {
  if (raw === undefined || raw.toUpperCase() === 'Z') return 0;
  const sign = raw.startsWith('-') ? -1 : 1;
  const digits = raw.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 18 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

export function isValidDate(d: CivilDate): boolean {
  if (!Number.isInteger(d.year) || d.year < 1 || d.year > 9999) return false;
  if (!Number.isInteger(d.month) || d.month < 1 || d.month > 12) return false;
  return Number.isInteger(d.day) && d.day >= 1 && d.day <= daysInMonth(d.year, d.month);
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 (Hinnant's days_from_civil): exact for every proleptic Gregorian date. */
function toDayNumber(d: CivilDate): number {
  return daysFromCivil(d.year, d.month, d.day);
}

function fromDayNumber(n: number): CivilDate {
  const [year, month, day] = civilFromDays(n);
  return { year, month, day };
}

export function addDays(d: CivilDate, days: number): CivilDate {
  return fromDayNumber(toDayNumber(d) + days);
}

/** ISO weekday: Monday 1 … Sunday 7. */
export function isoWeekday(d: CivilDate): number {
  // 1970-01-01 was a Thursday (ISO 4).
  return ((((toDayNumber(d) + 3) % 7) + 7) % 7) + 1;
}

/**
 * Week convention: ISO weeks, Monday to Sunday. "Last week" said on any day of a week is the
 * whole Monday–Sunday week before it; "next week" the one after.
 */
export function weekRange(d: CivilDate, offsetWeeks: number): CivilRange {
  const start = addDays(d, 1 - isoWeekday(d) + 7 * offsetWeeks);
  return { start, end: addDays(start, 6) };
}

export function shiftMonth(year: number, month: number, by: number): [number, number] {
  const index = year * 12 + (month - 1) + by;
  return [Math.floor(index / 12), (index % 12) + 1];
}

export function monthRange(year: number, month: number): CivilRange {
  return {
    start: { year, month, day: 1 },
    end: { year, month, day: daysInMonth(year, month) },
  };
}

export function yearRange(year: number): CivilRange {
  return { start: { year, month: 1, day: 1 }, end: { year, month: 12, day: 31 } };
}

export function compareDates(a: CivilDate, b: CivilDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

export function formatDate(d: CivilDate): string {
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  return `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}`;
}

/** A wall-clock instant in the writer's offset, written as UTC (MM-GEN-1). */
export function formatInstant(d: CivilDate, hour: number, minute: number, offset: number): string {
  const total = toDayNumber(d) * 1440 + hour * 60 + minute - offset;
  const day = fromDayNumber(Math.floor(total / 1440));
  const rest = total - Math.floor(total / 1440) * 1440;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${formatDate(day)}T${pad(Math.floor(rest / 60))}:${pad(rest % 60)}:00Z`;
}
