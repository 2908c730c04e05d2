import { describe, expect, it } from 'vitest';
import { codePointLength } from './text.ts';
import {
  BlockSummaryOutput,
  InvalidModelOutputError,
  validateBlockSummary,
} from './summary.schema.ts';

const valid = {
  title: 'Switch the monorepo to pnpm',
  tags: ['pnpm', 'ci'],
  summary: 'The team decided to move from npm to pnpm.',
  keyPoints: ['We decided to switch to pnpm.', 'CI migrates next week.', 'Deadline is Friday.'],
  shouldExtract: true,
};

function rejection(raw: unknown): InvalidModelOutputError {
  try {
    validateBlockSummary(raw);
  } catch (error) {
    if (error instanceof InvalidModelOutputError) return error;
    throw error;
  }
  throw new Error('expected validation to fail');
}

describe('validateBlockSummary (MM-BLK-7)', () => {
  it('accepts a well-formed summary unchanged', () => {
    expect(validateBlockSummary(valid)).toEqual(valid);
  });

  it.each([
    ['blank title', { ...valid, title: '  \n ' }, 'title'],
    ['blank summary', { ...valid, summary: '\t' }, 'summary'],
    ['non-array tags', { ...valid, tags: 'pnpm, ci' }, 'tags'],
    ['non-array key points', { ...valid, keyPoints: 'one point' }, 'keyPoints'],
    ['non-boolean flag', { ...valid, shouldExtract: 'true' }, 'shouldExtract'],
    ['missing flag', { ...valid, shouldExtract: undefined }, 'shouldExtract'],
    ['non-string tag', { ...valid, tags: ['pnpm', 3] }, 'tags.1'],
  ])('rejects a %s with "invalid L0-L2 layers"', (_case, raw, path) => {
    const error = rejection(raw);
    expect(error.message).toMatch(/^invalid L0-L2 layers: /);
    expect(error.message).toContain(`${path}:`);
    expect(error.code).toBe('invalid_model_output');
  });

  it('rejects what is not an object at all', () => {
    expect(rejection(null).message).toMatch(/^invalid L0-L2 layers: \(root\)/);
  });

  it('cuts an over-long title to 60 code points instead of rejecting it', () => {
    const out = validateBlockSummary({ ...valid, title: `${'中'.repeat(59)}😀😀😀` });
    expect(codePointLength(out.title)).toBe(60);
    expect(out.title.endsWith('中😀')).toBe(true);
  });

  it('trims, de-duplicates and caps tags and key points', () => {
    const out = validateBlockSummary({
      ...valid,
      tags: [' pnpm ', 'PNPM', '', 'ci', 'npm', 'docker', 'ci', 'lockfile', 'yarn'],
      keyPoints: Array.from({ length: 10 }, (_, i) => ` point ${i} `).concat(' point 0'),
    });
    expect(out.tags).toEqual(['pnpm', 'ci', 'npm', 'docker', 'lockfile']);
    expect(out.keyPoints).toEqual(Array.from({ length: 8 }, (_, i) => `point ${i}`));
  });

  it('falls back to the summary when no key point is left (L2 → L1, MM-BLK-6)', () => {
    const out = validateBlockSummary({ ...valid, keyPoints: ['', '  '] });
    expect(out.keyPoints).toEqual([valid.summary]);
  });

  it('stays a plain object schema so a response format can be derived from it', () => {
    expect(Object.keys(BlockSummaryOutput.shape)).toEqual([
      'title',
      'tags',
      'summary',
      'keyPoints',
      'shouldExtract',
    ]);
  });
});
