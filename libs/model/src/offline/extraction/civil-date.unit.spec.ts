import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  formatDate,
  formatInstant,
  isoWeekday,
  parseMentionTime,
  weekRange,
} from './civil-date.ts';

const day = (iso: string) => {
  const [year, month, d] = iso.split('-').map(Number);
  return { year: year ?? 0, month: month ?? 0, day: d ?? 0 };
};

describe('civil dates', () => {
  it('reads the writer’s wall clock and offset, and rejects what is not ISO-8601', () => {
    expect(parseMentionTime('2023-06-09T23:30:00+08:00')).toEqual({
      date: day('2023-06-09'),
      hour: 23,
      minute: 30,
      second: 0,
      offsetMinutes: 480,
    });
    expect(parseMentionTime('2023-06-09')?.offsetMinutes).toBe(0);
    expect(parseMentionTime('2023-06-09T10:00:00.123Z')?.hour).toBe(10);
    for (const bad of ['', 'yesterday', '2023-02-29T00:00:00Z', '2023-13-01', '09/06/2023']) {
      expect(parseMentionTime(bad)).toBeNull();
    }
  });

  it('uses ISO weeks, Monday to Sunday, on every day of the week', () => {
    // 2023-06-05 (Mon) … 2023-06-11 (Sun): "last week" is always 05-29 … 06-04.
    for (let i = 0; i < 7; i += 1) {
      const said = addDays(day('2023-06-05'), i);
      const last = weekRange(said, -1);
      expect([formatDate(last.start), formatDate(last.end)]).toEqual(['2023-05-29', '2023-06-04']);
    }
    expect(isoWeekday(day('2023-06-09'))).toBe(5);
    expect(isoWeekday(day('2023-06-11'))).toBe(7);
  });

  it('crosses months, years and leap days', () => {
    expect(formatDate(addDays(day('2024-02-28'), 1))).toBe('2024-02-29');
    expect(formatDate(addDays(day('2023-02-28'), 1))).toBe('2023-03-01');
    expect(formatDate(addDays(day('2023-01-02'), -7))).toBe('2022-12-26');
    expect(formatDate(addDays(day('1900-03-01'), -1))).toBe('1900-02-28');
  });

  it('writes an instant in the writer’s offset as UTC', () => {
    expect(formatInstant(day('2023-06-10'), 15, 0, 480)).toBe('2023-06-10T07:00:00Z');
    expect(formatInstant(day('2023-06-10'), 1, 30, 480)).toBe('2023-06-09T17:30:00Z');
    expect(formatInstant(day('2023-12-31'), 23, 0, -120)).toBe('2024-01-01T01:00:00Z');
  });

  it('agrees with the platform calendar on day arithmetic', () => {
    fc.assert(
      fc.property(fc.integer({ min: -200_000, max: 200_000 }), (offset) => {
        const expected = new Date(Date.UTC(2000, 0, 1) + offset * 86_400_000);
        const got = addDays(day('2000-01-01'), offset);
        expect(formatDate(got)).toBe(expected.toISOString().slice(0, 10));
        expect(isoWeekday(got)).toBe(expected.getUTCDay() || 7);
      }),
    );
  });
});
