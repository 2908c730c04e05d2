import { describe, expect, it } from 'vitest';
import { codePointLength, cutAtBoundary, cutCodePoints, tailCodePoints } from './text.ts';

describe('code-point helpers (MM-GEN-4)', () => {
  it('counts and cuts code points, never UTF-16 units', () => {
    expect(codePointLength('😀中文')).toBe(3);
    expect(cutCodePoints('😀中文', 2)).toBe('😀中');
    expect(tailCodePoints('😀中文', 2)).toBe('中文');
  });
});

describe('cutAtBoundary', () => {
  it('returns short text unchanged', () => {
    expect(cutAtBoundary('Move CI to pnpm', 60)).toBe('Move CI to pnpm');
  });

  it('keeps Latin words whole', () => {
    const cut = cutAtBoundary('Please migrate the continuous integration pipeline tomorrow', 30);
    expect(cut).toBe('Please migrate the continuous');
  });

  it('prefers ending a clause before a conjunction', () => {
    const text = 'I went to a LGBTQ support group yesterday and it was so powerful.';
    expect(cutAtBoundary(text, 60)).toBe('I went to a LGBTQ support group yesterday');
  });

  it('cuts Han text at a clause mark, else hard', () => {
    expect(cutAtBoundary('我们决定下周三发布新版本，李明负责测试和验收工作', 16)).toBe(
      '我们决定下周三发布新版本',
    );
    expect(cutAtBoundary('汉'.repeat(80), 60)).toBe('汉'.repeat(60));
  });
});
