import {
  addDays,
  compareDates,
  monthRange,
  shiftMonth,
  weekRange,
  yearRange,
  type CivilDate,
  type CivilRange,
} from './civil-date.ts';

/**
 * The calendar spans the time rules name. Conventions, each written once here:
 *
 * - weeks are ISO, Monday–Sunday (see `weekRange`); a weekend is that week's Saturday–Sunday;
 * - seasons are meteorological, northern hemisphere: spring Mar–May, summer Jun–Aug, autumn
 *   Sep–Nov, winter Dec–Feb, and the winter "of" a year starts in that year's December;
 * - "last <season>" is the latest one that has ended before the mention, "next <season>" the
 *   first that starts after it, "this <season>" the one under way or, if none, this year's;
 * - "the past week/month/year" is rolling (the span ending on the mention day), while
 *   "last week/month/year" is the previous calendar unit.
 */
export type Unit = 'week' | 'month' | 'year';
export type Season = 'spring' | 'summer' | 'autumn' | 'winter';

const SEASON_START: Record<Season, number> = { spring: 3, summer: 6, autumn: 9, winter: 12 };

export function seasonRange(year: number, season: Season): CivilRange {
  const month = SEASON_START[season];
  const [endYear, endMonth] = shiftMonth(year, month, 2);
  return { start: { year, month, day: 1 }, end: monthRange(endYear, endMonth).end };
}

export function relativeSeason(at: CivilDate, season: Season, shift: number): CivilRange {
  const candidates = [-2, -1, 0, 1].map((k) => seasonRange(at.year + k, season));
  if (shift < 0) return candidates.filter((r) => compareDates(r.end, at) < 0).at(-1) as CivilRange;
  if (shift > 0) return candidates.find((r) => compareDates(r.start, at) > 0) as CivilRange;
  const current = candidates.find(
    (r) => compareDates(r.start, at) <= 0 && compareDates(at, r.end) <= 0,
  );
  return current ?? seasonRange(at.year, season);
}

/** The calendar week, month or year `shift` units from the one containing `at`. */
export function unitRange(at: CivilDate, unit: Unit, shift: number): CivilRange {
  if (unit === 'week') return weekRange(at, shift);
  if (unit === 'month') return monthRange(...shiftMonth(at.year, at.month, shift));
  return yearRange(at.year + shift);
}

/** The span of one unit ending on `at`. */
export function rollingRange(at: CivilDate, unit: Unit): CivilRange {
  if (unit === 'week') return { start: addDays(at, -7), end: at };
  const [year, month] = shiftMonth(at.year, at.month, unit === 'month' ? -1 : -12);
  const start = { year, month, day: Math.min(at.day, monthRange(year, month).end.day) };
  return { start, end: at };
}

export function weekendRange(at: CivilDate, shift: number): CivilRange {
  const end = weekRange(at, shift).end;
  return { start: addDays(end, -1), end };
}
