import { describe, expect, it } from 'vitest';
import { analyseSentence } from './analysis.ts';
import { claimsOf, mayStateClaim } from './claims.ts';
import { eventClaims } from './event-claims.ts';

/** `subject.attribute=value`, with `!` for a negated claim and `~` for one said as a change. */
const said = (text: string, speaker = 'Lee', lastPerson?: string) =>
  claimsOf(analyseSentence(text), { speaker, ...(lastPerson ? { lastPerson } : {}) }).map(
    (c) =>
      `${c.subject}.${c.attribute}=${c.value}${c.negated ? '!' : ''}${c.change ? '~' : ''}${c.until ? ` until ${c.until}` : ''}`,
  );

describe('claims: what a sentence states about whom', () => {
  it.each([
    ["I'm pescatarian now.", ['Lee.diet=pescatarian~']],
    ["I'm vegetarian.", ['Lee.diet=vegetarian']],
    ['Tom handles infra.', ['infra.owner=Tom']],
    [
      'Tom is on vacation until December 8, so Priya covers infra.',
      ['Tom.state=on vacation until December 8', 'infra.owner=Priya'],
    ],
    ['We moved the beta deadline to January 10.', ['beta deadline.date=January 10~']],
    [
      'Sam covers for Alex while he is on parental leave.',
      ['Sam.covers_for=Alex', 'Alex.state=on parental leave'],
    ],
    ['Big news: I moved to Denver last week.', ['Lee.location=Denver~']],
    ['I work at Acme Corp as a designer.', ['Lee.role=designer', 'Lee.employer=Acme Corp']],
    ['Dana became the new tech lead.', ['Dana.role=new tech lead~']],
    ['We switched Atlas from npm to pnpm.', ['Atlas.tool=pnpm~']],
    ["Kim doesn't live in Oslo.", ['Kim.location=Oslo!']],
    ['I love hiking in the Alps.', ['Lee.likes=hiking']],
  ])('%s', (text, claims) => {
    expect(said(text)).toEqual(claims);
  });

  it('reads the same table in simplified Chinese', () => {
    expect(said('Priya代替Tom负责基础设施。', '李明')).toEqual([
      'Priya.covers_for=Tom',
      '基础设施.owner=Priya',
    ]);
    expect(said('我现在吃素。', '王芳')).toEqual(['王芳.diet=vegetarian~']);
    expect(said('我搬到了上海。', '王芳')).toEqual(['王芳.location=上海~']);
    expect(said('beta的截止日期推迟到1月10日。', '李明')).toEqual(['beta的截止日期.date=1月10日~']);
  });

  it('states nothing from plans, wishes, past habits or conditions (MM-GRF-3)', () => {
    for (const text of [
      'I will move to Berlin next year.',
      'Dana used to work at Acme Inc.',
      'If Tom handles infra, we are fine.',
      'I want to become a manager.',
      '我打算搬到深圳。',
    ]) {
      expect(said(text), text).toEqual([]);
    }
  });

  it('resolves he / she to the person named before, never to the speaker', () => {
    expect(said('She joined the platform team.', 'Ben', 'Priya')).toEqual([
      'Priya.member_of=platform team',
    ]);
    expect(said('Lena is on leave, so Marco covers for her.')).toContain('Marco.covers_for=Lena');
  });

  it('reads an event back from its summary, without the message it replied to', () => {
    const claims = eventClaims({
      title: 'Mia: is pescatarian now',
      summary: "Mia: I'm pescatarian now. (in reply to Sam: Tom handles infra.)",
    });
    expect(claims.map((c) => `${c.subject}.${c.attribute}=${c.value}`)).toEqual([
      'Mia.diet=pescatarian',
    ]);
  });

  it('skips the tagger only where no claim can be', () => {
    expect(mayStateClaim('Wow, that sounds amazing!')).toBe(false);
    for (const text of ["I'm pescatarian now.", 'Priya covers infra.', '李娜负责基础设施。']) {
      expect(mayStateClaim(text), text).toBe(true);
    }
  });
});
