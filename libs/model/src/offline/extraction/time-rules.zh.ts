import { addDays, monthRange, weekRange, yearRange } from './civil-date.ts';
import { seasonRange, unitRange, weekendRange, type Season, type Unit } from './calendar-spans.ts';
import { relative, type TimeRule } from './time-rule.ts';

/** Chinese rows of the supplementary rule table (see `time-rules.ts`). */
const ZH_SEASON: Record<string, Season> = {
  春: 'spring',
  夏: 'summer',
  秋: 'autumn',
  冬: 'winter',
};
const ZH_YEAR: Record<string, number> = { 前年: -2, 去年: -1, 今年: 0, 明年: 1, 后年: 2 };
const ZH_SHIFT: Record<string, number> = { 上上: -2, 上: -1, 这: 0, 本: 0, 下: 1, 下下: 2 };
const ZH_UNIT: Record<string, Unit> = {
  周: 'week',
  星期: 'week',
  礼拜: 'week',
  月: 'month',
  年: 'year',
};
const ZH_DIGITS = '零一二两三四五六七八九';
const ZH_WEEKDAY: Record<string, number> = {
  一: 1,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  日: 7,
  天: 7,
};

/** 1–99 in digits or Chinese numerals (两, 十二, 二十三); NaN otherwise. */
export function chineseNumber(text: string): number {
  if (/^\d+$/u.test(text)) return Number(text);
  if (text === '十') return 10;
  const digit = (ch: string | undefined) => {
    const i = ch === undefined ? -1 : ZH_DIGITS.indexOf(ch);
    return i < 0 ? NaN : i === 2 ? 2 : i > 2 ? i - 1 : i;
  };
  const [a, b, c] = Array.from(text);
  if (text.length === 1) return digit(a);
  if (a === '十') return text.length === 2 ? 10 + digit(b) : NaN;
  if (b === '十') return digit(a) * 10 + (c === undefined ? 0 : digit(c));
  return NaN;
}

export const ZH_RULES: readonly TimeRule[] = [
  {
    name: 'zh-season',
    pattern: /(前年|去年|今年|明年|后年|((?:19|20)\d{2})年)的?(春|夏|秋|冬)[天季]/gu,
    resolve: (m, at) => {
      const season = ZH_SEASON[m[3] ?? ''];
      if (!season) return null;
      if (m[2] !== undefined) {
        return { range: seasonRange(Number(m[2]), season), precision: 'range', basis: 'explicit' };
      }
      return at ? relative(seasonRange(at.year + (ZH_YEAR[m[1] ?? ''] ?? 0), season)) : null;
    },
  },
  {
    name: 'zh-weekend',
    pattern: /(上上|上|这|本|下下|下)个?周末/gu,
    resolve: (m, at) => (at ? relative(weekendRange(at, ZH_SHIFT[m[1] ?? ''] ?? 0)) : null),
  },
  {
    name: 'zh-year-month',
    pattern:
      /(前年|去年|今年|明年|后年)(\d{1,2}|[一二三四五六七八九十]{1,3})月份?(?:(\d{1,2}|[一二三四五六七八九十]{1,3})[日号])?/gu,
    resolve: (m, at) => {
      if (!at) return null;
      const year = at.year + (ZH_YEAR[m[1] ?? ''] ?? 0);
      const month = chineseNumber(m[2] ?? '');
      if (!(month >= 1 && month <= 12)) return null;
      const whole = monthRange(year, month);
      if (m[3] === undefined) return relative(whole, 'month');
      const day = chineseNumber(m[3]);
      if (!(day >= 1 && day <= whole.end.day)) return null;
      return relative({ start: { year, month, day }, end: { year, month, day } }, 'day');
    },
  },
  {
    // chrono's Chinese parser counts weeks from Sunday; 下周一 said on a Sunday would skip a week.
    name: 'zh-week-day',
    pattern: /(上上|上|这|本|下下|下)个?(?:周|星期|礼拜)([一二三四五六日天1-7])/gu,
    resolve: (m, at) => {
      if (!at) return null;
      const weekday = ZH_WEEKDAY[m[2] ?? ''] ?? Number(m[2]);
      const day = addDays(weekRange(at, ZH_SHIFT[m[1] ?? ''] ?? 0).start, weekday - 1);
      return relative({ start: day, end: day }, 'day');
    },
  },
  {
    name: 'zh-unit-calendar',
    pattern:
      /(上上|上|这|本|下下|下)个?(?:(周|星期|礼拜)(?![一二三四五六日天末1-7])|(月)(?![\d一二三四五六七八九十号日份]))/gu,
    resolve: (m, at) => {
      const unit: Unit = m[3] === undefined ? 'week' : 'month';
      const range = at && unitRange(at, unit, ZH_SHIFT[m[1] ?? ''] ?? 0);
      return range && relative(range, unit === 'week' ? 'range' : 'month');
    },
  },
  {
    name: 'zh-units-ago',
    pattern:
      /(\d{1,2}|[一二两三四五六七八九十]{1,3})个?(周|星期|礼拜|月|年)(以前|之前|前|以后|之后|后)/gu,
    resolve: (m, at) => {
      const n = chineseNumber(m[1] ?? '');
      const unit = ZH_UNIT[m[2] ?? ''];
      if (!at || !unit || !(n >= 1)) return null;
      const shift = (m[3] ?? '').endsWith('前') ? -n : n;
      return relative(unitRange(at, unit, shift), unit === 'week' ? 'range' : unit);
    },
  },
  {
    name: 'zh-year-relative',
    pattern: /(前年|去年|今年|明年|后年)/gu,
    resolve: (m, at) =>
      at ? relative(yearRange(at.year + (ZH_YEAR[m[1] ?? ''] ?? 0)), 'year') : null,
  },
  {
    name: 'zh-year',
    pattern: /((?:19|20)\d{2})年(?!\d{1,2}月|[一二三四五六七八九十]{1,3}月)/gu,
    resolve: (m) => ({ range: yearRange(Number(m[1])), precision: 'year', basis: 'explicit' }),
  },
];
