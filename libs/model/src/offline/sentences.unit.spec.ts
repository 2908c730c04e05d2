import { describe, expect, it } from 'vitest';
import { splitSentences } from './sentences.ts';

describe('splitSentences', () => {
  it('splits English on . ! ? but not after abbreviations, initials or decimals', () => {
    expect(
      splitSentences('Dr. Smith agrees, e.g. for CI. Version 2.5 ships! Really? J. Doe too.'),
    ).toEqual(['Dr. Smith agrees, e.g. for CI.', 'Version 2.5 ships!', 'Really?', 'J. Doe too.']);
  });

  it('splits Chinese on 。！？ without spaces, and on newlines', () => {
    expect(splitSentences('今天很好。明天呢？好的！我们决定用pnpm\n下周发布')).toEqual([
      '今天很好。',
      '明天呢？',
      '好的！',
      '我们决定用pnpm',
      '下周发布',
    ]);
  });

  it('drops fenced and code-like lines and list markers, keeping substrings', () => {
    const text =
      'Plan:\n- Switch to pnpm.\n```ts\nconst a = 1;\n```\nconst b = () => 2;\n2. Update the README.';
    const out = splitSentences(text);
    expect(out).toEqual(['Plan:', 'Switch to pnpm.', 'Update the README.']);
    for (const s of out) expect(text).toContain(s);
  });

  it('reads only the head and tail of a huge message', () => {
    const text = `Head fact.\n${'filler words here. '.repeat(5000)}\nMiddle fact.\n${'more words. '.repeat(5000)}\nTail fact.`;
    const out = splitSentences(text);
    expect(out[0]).toBe('Head fact.');
    expect(out.at(-1)).toBe('Tail fact.');
    expect(out).not.toContain('Middle fact.');
  });
});
