import { yearRange } from './civil-date.ts';
import {
  relativeSeason,
  rollingRange,
  seasonRange,
  unitRange,
  weekendRange,
  type Season,
  type Unit,
} from './calendar-spans.ts';
import { relative, type TimeRule } from './time-rule.ts';
import { ZH_RULES } from './time-rules.zh.ts';

/**
 * The supplementary rule table: time expressions chrono-node does not parse ("去年夏天",
 * "last summer", "下个月", "in 2022"), or parses as one day where the speaker meant a span
 * ("last week" → the day seven days back). They run before chrono and claim their words.
 * Span conventions (ISO weeks, meteorological seasons) are in `calendar-spans.ts`.
 */

const EN_SEASON: Record<string, Season> = {
  spring: 'spring',
  summer: 'summer',
  fall: 'autumn',
  autumn: 'autumn',
  winter: 'winter',
};
const EN_SHIFT: Record<string, number> = { last: -1, previous: -1, this: 0, next: 1, coming: 1 };

const lower = (m: RegExpExecArray, i: number) => (m[i] ?? '').toLowerCase();

const EN_RULES: readonly TimeRule[] = [
  {
    name: 'en-weekend',
    pattern: /\b(this past|last|past|previous|this|the coming|next) weekend\b/giu,
    resolve: (m, at) => {
      if (!at) return null;
      const word = lower(m, 1);
      const shift = /past|last|previous/u.test(word) ? -1 : word === 'next' ? 1 : 0;
      return relative(weekendRange(at, shift));
    },
  },
  {
    name: 'en-season-relative',
    pattern: /\b(this past|last|previous|this|next|coming) (spring|summer|fall|autumn|winter)\b/giu,
    resolve: (m, at) => {
      const word = lower(m, 1);
      const shift = /past|last|previous/u.test(word) ? -1 : word === 'this' ? 0 : 1;
      const season = EN_SEASON[lower(m, 2)];
      return at && season ? relative(relativeSeason(at, season, shift)) : null;
    },
  },
  {
    name: 'en-season-year',
    pattern: /\b(spring|summer|fall|autumn|winter),?(?: of)? ((?:19|20)\d{2})\b/giu,
    resolve: (m) => {
      const season = EN_SEASON[lower(m, 1)];
      if (!season) return null;
      return { range: seasonRange(Number(m[2]), season), precision: 'range', basis: 'explicit' };
    },
  },
  {
    name: 'en-unit-before-last',
    pattern: /\bthe (week|month|year) (before last|after next)\b/giu,
    resolve: (m, at) => {
      const unit = lower(m, 1) as Unit;
      const range = at && unitRange(at, unit, lower(m, 2) === 'before last' ? -2 : 2);
      return range && relative(range, unit === 'week' ? 'range' : unit);
    },
  },
  {
    name: 'en-unit-partial',
    pattern: /\b(earlier|later) this (week|month|year)\b/giu,
    resolve: (m, at) => {
      if (!at) return null;
      const whole = unitRange(at, lower(m, 2) as Unit, 0);
      return relative(lower(m, 1) === 'earlier' ? { ...whole, end: at } : { ...whole, start: at });
    },
  },
  {
    name: 'en-unit-calendar',
    pattern: /\b(last|previous|this|next|coming) (week|month|year)\b/giu,
    resolve: (m, at) => {
      const unit = lower(m, 2) as Unit;
      const range = at && unitRange(at, unit, EN_SHIFT[lower(m, 1)] ?? 0);
      return range && relative(range, unit === 'week' ? 'range' : unit);
    },
  },
  {
    name: 'en-unit-rolling',
    pattern: /\b(?:the |this )?past (week|month|year)\b/giu,
    resolve: (m, at) => (at ? relative(rollingRange(at, lower(m, 1) as Unit)) : null),
  },
  {
    name: 'en-year',
    pattern:
      /\b(?:in|during|since|by|until|till|before|after|around|throughout|from|of|back in|year)\s+((?:19|20)\d{2})\b(?![-/.:]\d|\s*(?:-|–|to)\s*\d)/giu,
    resolve: (m) => ({ range: yearRange(Number(m[1])), precision: 'year', basis: 'explicit' }),
  },
];

/** English first, then Chinese; within each, longer and more specific patterns first. */
export const TIME_RULES: readonly TimeRule[] = [...EN_RULES, ...ZH_RULES];
