import { describe, expect, it } from 'vitest';
import { bm25Rank, searchTerms } from './bm25.ts';
import { queryTimeTerms, timeFieldTerms, timeFieldText } from './time-terms.ts';

describe('timeFieldTerms', () => {
  it('names a day at every grain, as written (the date before the offset)', () => {
    expect(timeFieldTerms('2023-07-14T23:30:00-05:00')).toEqual([
      'time:2023',
      'time:2023-07',
      'time:2023-07-14',
      'time:--07',
      'time:2023-W28',
    ]);
  });
  it('gives ISO weeks across a year end', () => {
    expect(timeFieldTerms('2021-01-03')).toContain('time:2020-W53');
    expect(timeFieldTerms('2024-12-30')).toContain('time:2025-W01');
    expect(timeFieldTerms('2024-02-29')).toContain('time:2024-W09');
  });
  it('names a span at the grains it fits', () => {
    // A week: its days, its week, its month and year.
    const week = timeFieldTerms('2023-06-26/2023-07-02');
    expect(week).toEqual(
      expect.arrayContaining([
        'time:2023',
        'time:2023-06',
        'time:2023-07',
        'time:2023-06-26',
        'time:2023-07-02',
        'time:2023-W26',
      ]),
    );
    expect(week).toHaveLength(1 + 2 + 2 + 1 + 7);
    // A year: only the year.
    expect(timeFieldTerms('2022-01-01/2022-12-31')).toEqual(['time:2022']);
    // A month: the month and its weeks, no days.
    const month = timeFieldTerms('2023-06-01/2023-06-30');
    expect(month).toContain('time:2023-06');
    expect(month.some((t) => /^time:\d{4}-\d{2}-\d{2}$/.test(t))).toBe(false);
  });
  it('ignores what is not a date', () => {
    expect(timeFieldTerms('')).toEqual([]);
    expect(timeFieldTerms('soon 2023-13-01 2023-02-30')).toEqual([]);
  });
  it('writes an interval only when the ends differ', () => {
    expect(timeFieldText('2023-01-01', '2023-01-31')).toBe('2023-01-01/2023-01-31');
    expect(timeFieldText('2023-01-01', '2023-01-01')).toBe('2023-01-01');
    expect(timeFieldText(null, '2023-01-01')).toBe('');
  });
});

describe('queryTimeTerms', () => {
  it.each([
    ['What did Gina find on 1 February, 2023?', ['time:2023-02-01']],
    ['What painting did she show on October 13, 2023?', ['time:2023-10-13']],
    ['What did Mel paint in July 2023?', ['time:2023-07']],
    ['What happened in the last week of August 2023?', ['time:2023-08']],
    ['How many times has she gone to the beach in 2023?', ['time:2023']],
    ['When did Melanie go camping in June?', ['time:--06']],
    ['Which spot did Joanna visit in May?', ['time:--05']],
    ['May I ask what you think?', []],
    ['What did they march for?', []],
    ['Was it on 2023-02-30?', []],
    ['the 2023-05-08 meeting', ['time:2023-05-08']],
  ])('%s → %j', (query, terms) => {
    expect(queryTimeTerms(query)).toEqual(terms);
  });
  it('reads relative periods from the given day only', () => {
    expect(queryTimeTerms('what did we decide last week?')).toEqual([]);
    expect(queryTimeTerms('what did we decide last week?', '2023-07-14')).toEqual([
      'time:2023-W27',
    ]);
    expect(queryTimeTerms('yesterday', '2023-03-01')).toEqual(['time:2023-02-28']);
    expect(queryTimeTerms('last month', '2023-01-10')).toEqual(['time:2022-12']);
    expect(queryTimeTerms('two years ago', '2023-01-10')).toEqual(['time:2021']);
  });
});

describe('time in search', () => {
  it('finds a message by the month a question names, not only by its words', () => {
    const docs = [
      {
        id: 'june',
        fields: [
          { text: 'We went camping by the lake', weight: 1 },
          { text: '2023-06-20T10:00:00Z', weight: 1, kind: 'time' as const },
        ],
      },
      {
        id: 'july',
        fields: [
          { text: 'We went camping in the mountains', weight: 1 },
          { text: '2023-07-18T10:00:00Z', weight: 1, kind: 'time' as const },
        ],
      },
    ];
    expect(searchTerms('When did Melanie go camping in July?')).toContain('time:--07');
    expect(bm25Rank('When did Melanie go camping in July?', docs)[0]?.id).toBe('july');
    expect(bm25Rank('When did Melanie go camping in June?', docs)[0]?.id).toBe('june');
  });
});
