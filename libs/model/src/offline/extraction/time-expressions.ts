import * as chrono from 'chrono-node';
import type { ParsedComponents, ParsedResult } from 'chrono-node';
import { hasHan } from '../words.ts';
import {
  addDays,
  compareDates,
  formatDate,
  formatInstant,
  isValidDate,
  monthRange,
  weekRange,
  yearRange,
  type CivilDate,
  type CivilRange,
  type MentionTime,
} from './civil-date.ts';
import type { Tense } from './tense.ts';
import { TIME_RULES } from './time-rules.ts';

/** A time expression found in a sentence, resolved against the message's own time. */
export interface TimeExpression {
  /** The exact words, minus a leading neutral preposition ("in 2022" → "2022") and trailing punctuation. */
  text: string;
  index: number;
  resolved: ResolvedTime | null;
}

export interface ResolvedTime {
  happenedStart: string;
  happenedEnd: string;
  precision: 'instant' | 'day' | 'month' | 'year' | 'range';
  basis: 'explicit' | 'relative' | 'inferred';
  /** Where the occurrence lies from the mention: it decides planned vs occurred. */
  relation: 'past' | 'current' | 'future' | 'unknown';
}

interface Span extends CivilRange {
  precision: ResolvedTime['precision'];
  basis: ResolvedTime['basis'];
  clock?: { hour: number; minute: number };
}

/**
 * Most sentences hold no time, so one cheap test gates both the rule table and chrono (the slow
 * step). It names every word either can anchor a date to: month, weekday and season names,
 * casual day words, units, numeric dates and years, and their Chinese forms.
 */
const TIME_HINT = new RegExp(
  [
    String.raw`\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*)\b`,
    String.raw`\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?s?\b`,
    String.raw`\b(?:yesterday|today|tonight|tomorrow|ago|weeks?|weekend|months?|years?|days?|morning|afternoon|evening|night|noon|later|spring|summer|fall|autumn|winter)\b`,
    String.raw`\d{1,4}[-/.]\d{1,2}|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:19|20)\d{2}\b|\d\s*(?:am|pm)\b`,
    String.raw`[昨今明前后][天晚早]|[上下这本]个?(?:周|星期|礼拜|月)|周[一二三四五六日天末]|星期|礼拜|[\d一二三四五六七八九十两]\s*个?[年月日号天周]|[早晚]上|[上下]午|[去今明前后]年|[春夏秋冬][天季]`,
  ].join('|'),
  'iu',
);
const RELATIVE =
  /\b(?:last|next|this|coming|past|ago|yesterday|today|tomorrow|tonight|later|earlier|before|after|from now)\b|[昨今明前后上下本这]/iu;
/**
 * Not occurrence times: "now" is the mention itself, and "for 4 years" is a duration (chrono
 * reads it as four years ahead).
 */
const NOT_A_TIME = /^(?:(?:right )?now|现在|目前)$|^(?:for|over)\s/iu;
/** A lone abbreviation is more often a word ("sat with her", "the sun") than a day or month. */
const BARE_ABBREVIATION =
  /^(?:sat|sun|wed|mon|tue|tues|thu|thur|thurs|fri|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)$/iu;
const NEUTRAL_PREPOSITION = /^(?:on|in|at|during|of|year)\s+/iu;
/** Words that make a date the end of a span ("until", "till", 直到, 休假到). */
const UNTIL =
  /(?:\b(?:until|till|through|thru)\s+(?:the\s+)?|(?:直到|一直到|(?<!推迟|延期|改|提前|搬|回)到))$/iu;
const WEEK_WORD = /\bweeks?\b|周|星期|礼拜/iu;

/**
 * Every time expression in `sentence`, in text order. The supplementary rules run first and
 * claim their words; chrono-node handles the rest (English, or its simplified-Chinese parser
 * for sentences with Han). Without a mention time only explicit dates resolve (MM-EVT-4).
 */
export function findTimeExpressions(
  sentence: string,
  mention: MentionTime | null,
  tense: Tense,
): TimeExpression[] {
  const found: TimeExpression[] = [];
  if (!TIME_HINT.test(sentence)) return found;
  const claimed: [number, number][] = [];
  const free = (start: number, end: number) => claimed.every(([s, e]) => end <= s || start >= e);
  for (const rule of TIME_RULES) {
    for (const match of sentence.matchAll(rule.pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (!free(start, end)) continue;
      claimed.push([start, end]);
      const resolution = rule.resolve(match, mention?.date ?? null);
      const span: Span | null = resolution && { ...resolution.range, ...resolution };
      found.push(expression(match[0], start, span, mention));
    }
  }
  for (const result of parseWithChrono(sentence, mention)) {
    const end = result.index + result.text.length;
    if (!free(result.index, end)) continue;
    let span = chronoSpan(result, mention, tense);
    if (span === undefined) continue;
    claimed.push([result.index, end]);
    // "until December 8": from the mention up to that day (a span, never a single day).
    const until = UNTIL.exec(sentence.slice(Math.max(0, result.index - 16), result.index));
    if (until && span && mention && compareDates(span.end, mention.date) >= 0) {
      span = { start: mention.date, end: span.end, precision: 'range', basis: span.basis };
      const from = result.index - until[0].length;
      found.push(expression(sentence.slice(from, end), from, span, mention));
      continue;
    }
    found.push(expression(result.text, result.index, span, mention));
  }
  return found.sort((a, b) => a.index - b.index);
}

function parseWithChrono(sentence: string, mention: MentionTime | null): ParsedResult[] {
  // chrono reads the reference through local-time getters, so the writer's wall clock is
  // rebuilt as a local Date: results then come back in the writer's calendar on any machine.
  const ref = new Date(2000, 0, 1, mention?.hour ?? 12, mention?.minute ?? 0, mention?.second ?? 0);
  const day = mention?.date ?? { year: 2000, month: 1, day: 1 };
  ref.setFullYear(day.year, day.month - 1, day.day);
  const parser = hasHan(sentence) ? chrono.zh.hans : chrono.casual;
  return parser.parse(sentence, ref, { forwardDate: false });
}

/** undefined: not a date at all (a bare clock time, "now"); null: a date we cannot place. */
function chronoSpan(
  result: ParsedResult,
  mention: MentionTime | null,
  tense: Tense,
): Span | null | undefined {
  const s = result.start;
  const casualToday = /^(?:this|今)/iu.test(result.text) && hasCasualTag(result);
  const hasDate = (['day', 'weekday', 'month', 'year'] as const).some((c) => s.isCertain(c));
  if (
    NOT_A_TIME.test(result.text.trim()) ||
    BARE_ABBREVIATION.test(result.text) ||
    (!hasDate && !casualToday)
  )
    return undefined;
  const relative = RELATIVE.test(result.text) || result.tags().has('result/relativeDate');
  const weekdayOnly = s.isCertain('weekday') && !s.isCertain('day');
  const basis =
    relative || weekdayOnly ? 'relative' : s.isCertain('year') ? 'explicit' : 'inferred';
  if (mention === null && basis !== 'explicit') return null;
  const startRange = componentRange(s, mention, tense, relative);
  const endRange = result.end ? componentRange(result.end, mention, tense, relative) : null;
  if (!startRange || (result.end && !endRange)) return null;
  if (endRange) {
    if (compareDates(endRange.end, startRange.start) < 0) return null;
    return { start: startRange.start, end: endRange.end, precision: 'range', basis };
  }
  if (relative && WEEK_WORD.test(result.text) && !s.isCertain('weekday')) {
    return { ...weekRange(startRange.start, 0), precision: 'range', basis };
  }
  return { ...startRange, basis };
}

function hasCasualTag(result: ParsedResult): boolean {
  for (const tag of result.tags()) if (tag.startsWith('casualReference/')) return true;
  return false;
}

/** The calendar span one set of components names, at the precision it was actually given. */
function componentRange(
  c: ParsedComponents,
  mention: MentionTime | null,
  tense: Tense,
  relative: boolean,
): (CivilRange & Pick<Span, 'precision' | 'clock'>) | null {
  let date: CivilDate = {
    year: c.get('year') ?? 0,
    month: c.get('month') ?? 0,
    day: c.get('day') ?? 0,
  };
  if (!isValidDate(date)) return null;
  const at = mention?.date;
  // A bare weekday or month without a year points back for past tense, forward for plans.
  if (at && !relative && (tense === 'past' || tense === 'future')) {
    const sign = compareDates(date, at);
    const wrongWay = tense === 'past' ? sign > 0 : sign < 0;
    const step = tense === 'past' ? -1 : 1;
    if (wrongWay && c.isCertain('weekday') && !c.isCertain('day')) date = addDays(date, 7 * step);
    else if (wrongWay && !c.isCertain('year')) date = { ...date, year: date.year + step };
    if (!isValidDate(date)) return null;
  }
  // Casual words ("this morning") certify no date part, yet name the mention day.
  const dayLevel =
    c.isCertain('day') || c.isCertain('weekday') || (!c.isCertain('month') && !c.isCertain('year'));
  if (dayLevel && c.isCertain('hour')) {
    const clock = { hour: c.get('hour') ?? 0, minute: c.get('minute') ?? 0 };
    return { start: date, end: date, precision: 'instant', clock };
  }
  if (dayLevel) return { start: date, end: date, precision: 'day' };
  if (c.isCertain('month')) return { ...monthRange(date.year, date.month), precision: 'month' };
  return { ...yearRange(date.year), precision: 'year' };
}

function expression(
  raw: string,
  index: number,
  span: Span | null,
  mention: MentionTime | null,
): TimeExpression {
  const lead = NEUTRAL_PREPOSITION.exec(raw)?.[0].length ?? 0;
  // chrono sometimes takes the comma after a weekday ("Last Friday,"); the words end before it.
  const text = raw.slice(lead).replace(/[\s,，.。;；:：]+$/u, '');
  if (!span || !isValidDate(span.start) || !isValidDate(span.end)) {
    return { text, index: index + lead, resolved: null };
  }
  const offset = mention?.offsetMinutes ?? 0;
  const format = (d: CivilDate) =>
    span.clock ? formatInstant(d, span.clock.hour, span.clock.minute, offset) : formatDate(d);
  return {
    text,
    index: index + lead,
    resolved: {
      happenedStart: format(span.start),
      happenedEnd: format(span.end),
      precision: span.precision,
      basis: span.basis,
      relation: relationTo(span, mention),
    },
  };
}

function relationTo(span: Span, mention: MentionTime | null): ResolvedTime['relation'] {
  if (!mention) return 'unknown';
  if (compareDates(span.end, mention.date) < 0) return 'past';
  if (compareDates(span.start, mention.date) > 0) return 'future';
  if (span.clock) {
    const minutes = span.clock.hour * 60 + span.clock.minute;
    const said = mention.hour * 60 + mention.minute;
    if (minutes !== said) return minutes < said ? 'past' : 'future';
  }
  return 'current';
}
