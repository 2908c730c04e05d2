import { civilFromDays as civilOf, daysFromCivil as daysOf } from '../profile/instants.ts';
/**
 * Time as search terms (issue 36). A message is indexed with the calendar of its time, a memory
 * event with that of its mention and of its occurrence, as `time:` terms at every grain:
 *
 *   time:2023 · time:2023-07 · time:2023-07-14 · time:2023-W28 · time:--07 (July of any year)
 *
 * A query that names a date, a month, a year or a period ("on 14 July, 2023", "in July 2023",
 * "in October", "last week") gets the one term of the grain it names, so it matches what was said
 * or happened then, whatever words were used. Dates are read as written (the day of an ISO time
 * is the one before its offset), as people date what they say. Pure: no clock; a relative period
 * needs the caller's `today`.
 */

/** English month names, lower case, January first. */
export const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;

/** Spans longer than these are indexed only at the coarser grains. */
const MAX_YEARS = 5;
const MONTHS_UP_TO_DAYS = 92;
const WEEKS_UP_TO_DAYS = 31;
const DAYS_UP_TO_DAYS = 7;

interface Civil {
  y: number;
  m: number;
  d: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Days since 1970-01-01 of a civil date (the shared calendar arithmetic of `instants.ts`). */
function daysFromCivil({ y, m, d }: Civil): number {
  return daysOf(y, m, d);
}

function civilFromDays(days: number): Civil {
  const [y, m, d] = civilOf(days);
  return { y, m, d };
}

/** ISO 8601 week of a day: `time:2023-W28` (the week's Thursday decides its year). */
function weekTerm(days: number): string {
  const weekday = (((days + 3) % 7) + 7) % 7; // Monday 0; 1970-01-01 was a Thursday
  const thursday = days - weekday + 3;
  const year = civilFromDays(thursday).y;
  const week = Math.floor((thursday - daysFromCivil({ y: year, m: 1, d: 1 })) / 7) + 1;
  return `time:${year}-W${pad(week)}`;
}

const yearTerm = (y: number) => `time:${y}`;
const monthTerm = (y: number, m: number) => `time:${y}-${pad(m)}`;
const anyYearMonthTerm = (m: number) => `time:--${pad(m)}`;
const dayTerm = ({ y, m, d }: Civil) => `time:${y}-${pad(m)}-${pad(d)}`;

function validDate(y: number, m: number, d: number): Civil | null {
  if (!(m >= 1 && m <= 12 && d >= 1 && d <= 31)) return null;
  const c = civilFromDays(daysFromCivil({ y, m, d }));
  return c.m === m && c.d === d ? c : null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;

function parseDate(text: string): Civil | null {
  const m = ISO_DATE.exec(text);
  return m ? validDate(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** Every grain's term of one day. */
function dayTerms(c: Civil): string[] {
  return [
    yearTerm(c.y),
    monthTerm(c.y, c.m),
    dayTerm(c),
    anyYearMonthTerm(c.m),
    weekTerm(daysFromCivil(c)),
  ];
}

/**
 * The terms of a span of days: its years (up to 5), its months when it is at most about a
 * quarter, its weeks when at most a month, its days when at most a week. A span names every
 * grain it fits, so "last year" is found by a question about that year but not by one about a
 * day in it.
 */
function spanTerms(start: Civil, end: Civil): string[] {
  const a = daysFromCivil(start);
  const b = daysFromCivil(end);
  if (b < a) return dayTerms(start);
  const span = b - a + 1;
  const terms = new Set<string>();
  if (end.y - start.y < MAX_YEARS) for (let y = start.y; y <= end.y; y++) terms.add(yearTerm(y));
  for (let day = a; day <= b && span <= MONTHS_UP_TO_DAYS; day++) {
    const c = civilFromDays(day);
    terms.add(monthTerm(c.y, c.m));
    terms.add(anyYearMonthTerm(c.m));
    if (span <= WEEKS_UP_TO_DAYS) terms.add(weekTerm(day));
    if (span <= DAYS_UP_TO_DAYS) terms.add(dayTerm(c));
  }
  return [...terms];
}

/**
 * The `time:` terms of a time field: whitespace-separated ISO dates or times (`2023-07-14`,
 * `2023-07-14T09:30:00Z`) and ISO intervals (`2023-06-26/2023-07-02`). Anything else adds none.
 */
export function timeFieldTerms(text: string): string[] {
  const terms: string[] = [];
  for (const item of text.split(/\s+/)) {
    if (item.length === 0) continue;
    const [from, to] = item.split('/');
    const start = parseDate(from ?? '');
    if (!start) continue;
    const end = to === undefined ? null : parseDate(to);
    terms.push(...(end ? spanTerms(start, end) : dayTerms(start)));
  }
  return terms;
}

/** The text of a time field: an instant, or the interval start/end when both are known. */
export function timeFieldText(start: string | null | undefined, end?: string | null): string {
  if (!start) return '';
  return end && end !== start ? `${start}/${end}` : start;
}

// ---- queries

const MONTH_NAME =
  '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)';
/** Month names that are also ordinary words ("may", "march") count alone only after these. */
const MONTH_CUE =
  '(?:in|of|during|since|until|till|early|late|mid|before|after|by|last|next|this|from|to)';
const UNAMBIGUOUS_MONTH =
  '(january|february|april|june|july|august|september|october|november|december)';
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

const monthNumber = (name: string) =>
  MONTH_NAMES.findIndex((m) => m.startsWith(name.slice(0, 3))) + 1;

interface Rule {
  pattern: RegExp;
  /** The term the match names, or null when it names no valid date. */
  term: (m: RegExpMatchArray, today: Civil | null) => string | null;
}

const day = (y: string, month: number, d: string) => {
  const c = validDate(Number(y), month, Number(d));
  return c ? dayTerm(c) : null;
};

/** Most specific first: a span of the query taken by one rule is not read again by another. */
const RULES: readonly Rule[] = [
  {
    // "14 July, 2023", "14th of July 2023"
    pattern: new RegExp(
      `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}\\.?,?\\s+(\\d{4})\\b`,
      'g',
    ),
    term: (m) => day(m[3]!, monthNumber(m[2]!), m[1]!),
  },
  {
    // "July 14, 2023"
    pattern: new RegExp(`\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'g'),
    term: (m) => day(m[3]!, monthNumber(m[1]!), m[2]!),
  },
  {
    pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/g,
    term: (m) => day(m[1]!, Number(m[2]), m[3]!),
  },
  {
    // "the last week of August 2023", "July 2023", "July of 2023"
    pattern: new RegExp(
      `\\b(?:(?:the\\s+)?(?:first|last|second|third)\\s+(?:week|weekend|days?)\\s+of\\s+)?${MONTH_NAME}\\.?,?\\s+(?:of\\s+)?(\\d{4})\\b`,
      'g',
    ),
    term: (m) => monthTerm(Number(m[2]), monthNumber(m[1]!)),
  },
  {
    pattern: /\b(\d{4})-(\d{2})\b/g,
    term: (m) =>
      Number(m[2]) >= 1 && Number(m[2]) <= 12 ? monthTerm(Number(m[1]), Number(m[2])) : null,
  },
  {
    pattern: /\b(1[6-9]\d\d|20\d\d)\b/g,
    term: (m) => yearTerm(Number(m[1])),
  },
  {
    pattern: new RegExp(`\\b${MONTH_CUE}\\s+(?:the\\s+)?(?:mid-)?(may|march)\\b`, 'g'),
    term: (m) => anyYearMonthTerm(monthNumber(m[1]!)),
  },
  {
    pattern: new RegExp(`\\b${UNAMBIGUOUS_MONTH}\\b`, 'g'),
    term: (m) => anyYearMonthTerm(monthNumber(m[1]!)),
  },
  // Periods relative to today.
  {
    pattern: /\b(today|yesterday)\b/g,
    term: (m, today) =>
      today ? dayTerm(civilFromDays(daysFromCivil(today) - (m[1] === 'yesterday' ? 1 : 0))) : null,
  },
  {
    pattern: /\b(last|this|next)\s+(week|month|year)\b/g,
    term: (m, today) =>
      today ? relative(today, m[2]!, { last: -1, this: 0, next: 1 }[m[1]!]!) : null,
  },
  {
    pattern:
      /\b(\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(day|week|month|year)s?\s+ago\b/g,
    term: (m, today) =>
      today ? relative(today, m[2]!, -(NUMBER_WORDS[m[1]!] ?? Number(m[1]))) : null,
  },
];

function relative(today: Civil, unit: string, n: number): string | null {
  switch (unit) {
    case 'day':
      return dayTerm(civilFromDays(daysFromCivil(today) + n));
    case 'week':
      return weekTerm(daysFromCivil(today) + 7 * n);
    case 'month': {
      const index = today.y * 12 + (today.m - 1) + n;
      return monthTerm(Math.floor(index / 12), (index % 12) + 1);
    }
    case 'year':
      return yearTerm(today.y + n);
    default:
      return null;
  }
}

/**
 * The `time:` terms a query names, each at the grain it names: a day, a month of a year, a year,
 * a month of any year, or a period relative to `today` (an ISO date; without it relative periods
 * name nothing).
 */
export function queryTimeTerms(query: string, today?: string): string[] {
  const text = query.normalize('NFKC').toLocaleLowerCase();
  const now = today === undefined ? null : parseDate(today);
  const taken: [number, number][] = [];
  const terms = new Set<string>();
  for (const rule of RULES) {
    for (const m of text.matchAll(rule.pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      // A date that does not exist (30 February) names nothing, and no part of it is read again.
      taken.push([start, end]);
      const term = rule.term(m, now);
      if (term !== null) terms.add(term);
    }
  }
  return [...terms];
}
