import { describe, expect, it } from 'vitest';
import { fuzzyMatch, fuzzyMatchAny, matchesAllParticipants } from './fuzzy.ts';

describe('fuzzy match (MM-RET-2)', () => {
  it.each([
    ['Li Ming', 'li  ming', true],
    ['Li', 'Li Ming', true],
    ['Li Ming (PM)', 'li ming', true],
    ['ＰＮＰＭ', 'pnpm', true],
    ['李明', '李明老师', true],
    ['Alice', 'Bob', false],
    ['', 'anything', false],
    ['  ', ' ', false],
  ])('%j ~ %j → %s', (a, b, expected) => {
    expect(fuzzyMatch(a, b)).toBe(expected);
  });

  it('needs every wanted participant to match one of the event’s', () => {
    expect(matchesAllParticipants(['li', 'alice'], ['Alice Chen', 'Li Ming'])).toBe(true);
    expect(matchesAllParticipants(['li', 'bob'], ['Alice Chen', 'Li Ming'])).toBe(false);
    expect(fuzzyMatchAny('release', ['decision', 'Release notes'])).toBe(true);
  });
});
