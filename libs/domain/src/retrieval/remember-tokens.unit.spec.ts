import { describe, expect, it } from 'vitest';
import { rememberFingerprint, rememberGate } from './remember-gate.ts';
import { isNegated, rememberTokens, withNegationsSpelledOut } from './remember-tokens.ts';
import { containment, tokenize } from './tokenize.ts';

const card = (id: string, text: string) => ({
  id,
  tokens: rememberTokens(text),
  fingerprint: rememberFingerprint(text, text),
  negated: isNegated(text),
});

describe('rememberTokens: content tokens for the remember gate (MM-REM-3, MM-GEN-12)', () => {
  it('drops English function words and keeps negation', () => {
    expect(rememberTokens('The monorepo does not use pnpm in the CI.')).toEqual([
      'word:monorepo',
      'word:does',
      'word:not',
      'word:use',
      'word:pnpm',
      'word:ci',
    ]);
    expect(rememberTokens("Atlas doesn't use npm")).toContain('word:not');
  });

  it('a contraction compares like its written-out form, though search cuts the clitic', () => {
    expect(tokenize("Atlas doesn't use npm")).not.toContain('word:not');
    expect(rememberTokens('Atlas doesn’t use npm')).toEqual(
      rememberTokens('Atlas does not use npm'),
    );
    expect(rememberTokens("We can't and won't use npm")).toEqual(
      rememberTokens('We can not and will not use npm'),
    );
  });

  it('spells out only "n\'t" contractions', () => {
    expect(withNegationsSpelledOut("Don't, CAN'T, isn’t; John's won't")).toBe(
      "Do not, can not, is not; John's will not",
    );
    expect(withNegationsSpelledOut('Tnt is not a contraction')).toBe('Tnt is not a contraction');
    // Linear in the text: a 200,000-letter run is read once.
    const run = 'n'.repeat(200_000);
    expect(withNegationsSpelledOut(`${run} won't`)).toBe(`${run} will not`);
  });

  it('drops Han bigrams made only of function characters, keeps the rest', () => {
    const tokens = rememberTokens('我们以后用中文回答');
    expect(tokens).not.toContain('han2:我们');
    expect(tokens).toEqual(expect.arrayContaining(['han2:中文', 'han2:回答', 'han2:以后']));
    expect(rememberTokens('不')).toEqual(['han1:不']);
  });

  it('unrelated statements sharing only function words are not ambiguous', () => {
    const a = 'Melanie keeps her pottery tools in the school art room.';
    // An extracted event's title and summary, as the gate reads them.
    const b =
      'Melanie: My kids and I had a meeting with the school counselor\n' +
      'Melanie: My kids and I had a meeting with the school counselor today. ' +
      '(in reply to Assistant: That sounds great, tell me more!)';
    // Every token: melanie, in, the, school are shared, 4 of 10 → 0.4, an ambiguous hit.
    expect(containment(tokenize(a), tokenize(b))).toBeGreaterThanOrEqual(0.35);
    expect(containment(rememberTokens(a), rememberTokens(b))).toBeLessThan(0.35);
  });
});

describe('isNegated', () => {
  it.each([
    ['Atlas does not use npm.', true],
    ["Atlas doesn't use npm.", true],
    ['Atlas no longer uses npm.', true],
    ['Atlas never used npm.', true],
    ["We can't use npm.", true],
    ['Atlas won’t use npm.', true],
    ['项目不再使用 npm。', true],
    ['我们没有用 npm', true],
    ['Atlas uses pnpm now.', false],
    ['这两个方案不同', false],
    ['未来我们用 pnpm', false],
    ['非常好', false],
  ])('%s → %s', (text, negated) => {
    expect(isNegated(text)).toBe(negated);
  });
});

describe('rememberGate with content tokens', () => {
  const uses = card('evt_1', 'The monorepo uses pnpm as its package manager.');

  it('the same statement with a filler word more reinforces', () => {
    const out = rememberGate({
      candidate: card('new', 'The monorepo uses pnpm as its package manager now.'),
      live: [uses],
      searchHits: [uses],
    });
    expect(out).toMatchObject({ outcome: 'REINFORCED', eventId: 'evt_1', exact: false });
  });

  it('a negated statement with the same content words is never a reinforcement', () => {
    const negated = card('new', 'The monorepo no longer uses pnpm as its package manager.');
    expect(containment(negated.tokens, uses.tokens)).toBeGreaterThanOrEqual(0.85);
    const out = rememberGate({ candidate: negated, live: [uses], searchHits: [uses] });
    expect(out).toEqual({
      outcome: 'AMBIGUOUS',
      hits: [{ id: 'evt_1', containment: expect.any(Number) }],
    });
  });

  it('a statement about something else is new, whatever function words it shares', () => {
    const other = card('evt_2', 'Atlas is hosted in Munich, at the Hetzner data centre.');
    const out = rememberGate({
      candidate: card('new', 'The Atlas release is planned for June.'),
      live: [other],
      searchHits: [other],
    });
    expect(out).toEqual({ outcome: 'ADDED', gate: 'clear-new' });
  });
});

describe('agreement without a decider (MM-REM-3/4)', () => {
  const event = card('evt_1', 'We switched Project Atlas from npm to pnpm last week.');
  const gate = (text: string, agreementByRule = true) =>
    rememberGate({
      candidate: card('new', text),
      live: [event],
      searchHits: [event],
      agreementByRule,
    });

  it('a statement that only restates an event reinforces it', () => {
    expect(gate('Atlas uses pnpm now.')).toMatchObject({
      outcome: 'REINFORCED',
      eventId: 'evt_1',
      agreement: true,
    });
    expect(gate('Atlas still uses pnpm.')).toMatchObject({ outcome: 'REINFORCED' });
  });

  it('a new value, a change word or another polarity stays ambiguous (a conflict)', () => {
    expect(gate('Atlas uses yarn and pnpm.')).toMatchObject({ outcome: 'AMBIGUOUS' });
    expect(gate('Atlas replaced pnpm.')).toMatchObject({ outcome: 'AMBIGUOUS' });
    expect(gate('Atlas does not use pnpm.')).toMatchObject({ outcome: 'AMBIGUOUS' });
  });

  it('with a decider the decider decides', () => {
    expect(gate('Atlas uses pnpm now.', false)).toMatchObject({ outcome: 'AMBIGUOUS' });
  });

  it('reads Chinese alike', () => {
    const zh = card('evt_2', '项目已经改用 pnpm');
    const zhGate = (text: string) =>
      rememberGate({
        candidate: card('new', text),
        live: [zh],
        searchHits: [zh],
        agreementByRule: true,
      });
    expect(zhGate('项目使用 pnpm')).toMatchObject({ outcome: 'REINFORCED', agreement: true });
    expect(zhGate('项目改用 yarn 和 pnpm')).toMatchObject({ outcome: 'AMBIGUOUS' });
    expect(zhGate('项目不再使用 pnpm').outcome).not.toBe('REINFORCED');
  });
});
