import { describe, expect, it } from 'vitest';
import { rememberCandidate } from './remember.ts';

describe('rememberCandidate (MM-REM-2)', () => {
  it('uses the collapsed content as summary and its first sentence as title', () => {
    const c = rememberCandidate(
      'The project switched to pnpm!  CI   follows next week.',
      'decision',
    );
    expect(c.summary).toBe('The project switched to pnpm! CI follows next week.');
    expect(c.title).toBe('The project switched to pnpm!');
    expect(c.tags).toEqual(['agent-recorded', 'category:decision']);
    expect(c.eventType).toBe('decision');
    expect(c.criticality).toBe('routine');
    expect(c.scope).toBe('user');
  });

  it('splits Chinese sentences and newlines', () => {
    expect(rememberCandidate('以后用中文回答。谢谢', 'preference').title).toBe('以后用中文回答。');
    expect(rememberCandidate('first line\nsecond line', null).title).toBe('first line');
  });

  it('maps categories: preference floor, correction is a change, no category is other', () => {
    expect(rememberCandidate('I prefer tea', 'preference').criticality).toBe('preference');
    expect(rememberCandidate('Actually it was Tuesday', 'correction').eventType).toBe('change');
    const plain = rememberCandidate('Lunch is at noon', null);
    expect(plain.eventType).toBe('other');
    expect(plain.tags).toEqual(['agent-recorded']);
  });

  it('cuts the title to 80 and the summary to 2,000 characters', () => {
    const long = 'x'.repeat(3000);
    const c = rememberCandidate(long, 'fact');
    expect(Array.from(c.title)).toHaveLength(80);
    expect(Array.from(c.summary)).toHaveLength(2000);
  });
});
