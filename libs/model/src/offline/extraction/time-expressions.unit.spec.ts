import { afterEach, describe, expect, it } from 'vitest';
import { parseMentionTime } from './civil-date.ts';
import { detectTense } from './tense.ts';
import { findTimeExpressions, type TimeExpression } from './time-expressions.ts';
import { TIME_RULES } from './time-rules.ts';

/** 2023-06-09 is a Friday. */
const FRIDAY = '2023-06-09T13:56:00Z';

function first(sentence: string, said = FRIDAY): TimeExpression | undefined {
  return findTimeExpressions(sentence, parseMentionTime(said), detectTense(sentence))[0];
}

type Vector = [
  sentence: string,
  text: string,
  start: string,
  end: string,
  precision: string,
  basis: string,
];

const VECTORS: Vector[] = [
  // English, resolved against the message time.
  [
    'I gave a talk at a school last week.',
    'last week',
    '2023-05-29',
    '2023-06-04',
    'range',
    'relative',
  ],
  ['Yesterday I adopted a dog.', 'Yesterday', '2023-06-08', '2023-06-08', 'day', 'relative'],
  ['Next month we will move.', 'Next month', '2023-07-01', '2023-07-31', 'month', 'relative'],
  ['In 2022 I started painting.', '2022', '2022-01-01', '2022-12-31', 'year', 'explicit'],
  ['We met on May 7, 2023.', 'May 7, 2023', '2023-05-07', '2023-05-07', 'day', 'explicit'],
  [
    'We finish the prototype next week.',
    'next week',
    '2023-06-12',
    '2023-06-18',
    'range',
    'relative',
  ],
  ['Last summer we went camping.', 'Last summer', '2022-06-01', '2022-08-31', 'range', 'relative'],
  ['I ran a race last Saturday.', 'last Saturday', '2023-06-03', '2023-06-03', 'day', 'relative'],
  [
    'Last Friday, I went to a workshop.',
    'Last Friday',
    '2023-06-02',
    '2023-06-02',
    'day',
    'relative',
  ],
  ['I quit two weeks ago.', 'two weeks ago', '2023-05-22', '2023-05-28', 'range', 'relative'],
  [
    'We went hiking this past weekend.',
    'this past weekend',
    '2023-06-03',
    '2023-06-04',
    'range',
    'relative',
  ],
  ['I started five years ago.', 'five years ago', '2018-01-01', '2018-12-31', 'year', 'relative'],
  [
    'The meeting is tomorrow at 3pm.',
    'tomorrow at 3pm',
    '2023-06-10T15:00:00Z',
    '2023-06-10T15:00:00Z',
    'instant',
    'relative',
  ],
  // A bare weekday or month points the way the grammar does; the year was inferred.
  ['On Saturday I went hiking.', 'Saturday', '2023-06-03', '2023-06-03', 'day', 'relative'],
  ['I will see her on Saturday.', 'Saturday', '2023-06-10', '2023-06-10', 'day', 'relative'],
  ['I met him in March.', 'March', '2023-03-01', '2023-03-31', 'month', 'inferred'],
  ['I will visit Rome in March.', 'March', '2024-03-01', '2024-03-31', 'month', 'inferred'],
  // Chinese: chrono's simplified-Chinese parser plus the supplementary table.
  ['我去年夏天去了北京', '去年夏天', '2022-06-01', '2022-08-31', 'range', 'relative'],
  ['我们决定下周三发布2.0版本', '下周三', '2023-06-14', '2023-06-14', 'day', 'relative'],
  ['上周我搬到了上海', '上周', '2023-05-29', '2023-06-04', 'range', 'relative'],
  ['下个月我们要搬家', '下个月', '2023-07-01', '2023-07-31', 'month', 'relative'],
  ['昨天我去看了电影', '昨天', '2023-06-08', '2023-06-08', 'day', 'relative'],
  ['2022年我开始学吉他', '2022年', '2022-01-01', '2022-12-31', 'year', 'explicit'],
  ['去年5月我去了成都', '去年5月', '2022-05-01', '2022-05-31', 'month', 'relative'],
  ['两周前我辞职了', '两周前', '2023-05-22', '2023-05-28', 'range', 'relative'],
  ['我在2023年5月7日见了他', '2023年5月7日', '2023-05-07', '2023-05-07', 'day', 'explicit'],
];

describe('time expressions', () => {
  it.each(VECTORS)('%s → %s', (sentence, text, start, end, precision, basis) => {
    const found = first(sentence);
    expect(found?.text).toBe(text);
    expect(found?.resolved).toMatchObject({
      happenedStart: start,
      happenedEnd: end,
      precision,
      basis,
    });
  });

  it('resolves against the message time, never today (MM-EVT-4)', () => {
    expect(first('I gave a talk last week.', '2019-01-02T09:00:00Z')?.resolved).toMatchObject({
      happenedStart: '2018-12-24',
      happenedEnd: '2018-12-30',
    });
    expect(
      first('Yesterday I adopted a dog.', '2024-03-01T08:00:00Z')?.resolved?.happenedStart,
    ).toBe('2024-02-29');
  });

  it('reads the calendar day in the writer’s own offset', () => {
    // 23:30 UTC on the 9th is already the 10th in Shanghai: "yesterday" is then the 9th.
    expect(
      first('Yesterday I adopted a dog.', '2023-06-09T23:30:00Z')?.resolved?.happenedStart,
    ).toBe('2023-06-08');
    expect(
      first('Yesterday I adopted a dog.', '2023-06-10T07:30:00+08:00')?.resolved?.happenedStart,
    ).toBe('2023-06-09');
    expect(
      first('The call is tomorrow at 3pm.', '2023-06-10T07:30:00+08:00')?.resolved,
    ).toMatchObject({
      happenedStart: '2023-06-11T07:00:00Z',
      precision: 'instant',
    });
  });

  it('counts Chinese weeks from Monday, as the English ones', () => {
    // 2023-06-11 is a Sunday: 下周一 is the next day, 上周五 the Friday of the week before.
    expect(first('下周一开会', '2023-06-11T10:00:00Z')?.resolved?.happenedStart).toBe('2023-06-12');
    expect(first('上周五我们见面了', '2023-06-11T10:00:00Z')?.resolved?.happenedStart).toBe(
      '2023-06-02',
    );
    expect(first('这周日我休息', '2023-06-05T10:00:00Z')?.resolved?.happenedStart).toBe(
      '2023-06-11',
    );
    expect(first('next Monday we meet', '2023-06-11T10:00:00Z')?.resolved?.happenedStart).toBe(
      '2023-06-12',
    );
  });

  it('tells where the time lies from the mention', () => {
    expect(first('We finish the prototype next week.')?.resolved?.relation).toBe('future');
    expect(first('I gave a talk last week.')?.resolved?.relation).toBe('past');
    expect(first('This week I painted a lot.')?.resolved?.relation).toBe('current');
  });

  it('keeps an unresolvable time as text only when the message time is unknown', () => {
    const relative = findTimeExpressions('I gave a talk last week.', null, 'past');
    expect(relative).toEqual([{ text: 'last week', index: 14, resolved: null }]);
    const explicit = findTimeExpressions('We met on May 7, 2023.', null, 'past')[0];
    expect(explicit?.resolved).toMatchObject({ happenedStart: '2023-05-07', relation: 'unknown' });
  });

  it('finds no time where there is none, or only a clock, a duration or a look-alike word', () => {
    for (const sentence of [
      'I adopted a dog.',
      'We met at noon.',
      'I am 30 years old.',
      'I have known them for 4 years.',
      'So, I sat with her and we talked.',
      'I read it now.',
      '我喜欢喝咖啡',
    ]) {
      expect(first(sentence)?.resolved ?? null, sentence).toBeNull();
    }
  });

  it('has a resolving example for every supplementary rule', () => {
    const examples: Record<string, string> = {
      'en-weekend': 'We went hiking last weekend.',
      'en-season-relative': 'Next winter we ski.',
      'en-season-year': 'The summer of 2019 was great.',
      'en-unit-before-last': 'I quit the week before last.',
      'en-unit-partial': 'Earlier this month I moved.',
      'en-unit-calendar': 'Last year I moved.',
      'en-unit-rolling': 'I slept badly the past week.',
      'en-year': 'I graduated in 2019.',
      'zh-season': '我们明年春天结婚',
      'zh-weekend': '这个周末我们去爬山',
      'zh-year-month': '今年三月我换了工作',
      'zh-unit-calendar': '上个月我搬家了',
      'zh-week-day': '我们下周三发布',
      'zh-units-ago': '三个月前我开始跑步',
      'zh-year-relative': '前年我去了日本',
      'zh-year': '1990年我出生在杭州',
    };
    expect(Object.keys(examples).sort()).toEqual(TIME_RULES.map((r) => r.name).sort());
    for (const rule of TIME_RULES) {
      const sentence = examples[rule.name] ?? '';
      const match = new RegExp(rule.pattern.source, rule.pattern.flags).exec(sentence);
      expect(match, rule.name).not.toBeNull();
      const found = first(sentence);
      expect(found?.resolved, rule.name).not.toBeNull();
      expect(sentence.includes(found?.text ?? '\u0000'), rule.name).toBe(true);
    }
  });

  describe('on a machine in another time zone', () => {
    const zone = process.env.TZ;
    afterEach(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });

    it('gives the same answers (chrono is fed the writer’s wall clock)', () => {
      const sentences = VECTORS.map(([s]) => s);
      process.env.TZ = 'UTC';
      const utc = sentences.map((s) => JSON.stringify(first(s, '2023-06-10T01:30:00+08:00')));
      for (const tz of ['Pacific/Kiritimati', 'America/Los_Angeles']) {
        process.env.TZ = tz;
        expect(new Date(2023, 5, 9).getTimezoneOffset()).not.toBe(0);
        expect(sentences.map((s) => JSON.stringify(first(s, '2023-06-10T01:30:00+08:00')))).toEqual(
          utc,
        );
      }
    });
  });
});
