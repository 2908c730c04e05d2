import { describe, expect, it } from 'vitest';
import { ExtractionOutput, type ExtractedEvent } from '../../extraction.schema.ts';
import type { ExtractionInput } from '../../model-port.ts';
import { codePointLength } from '../../text.ts';
import { extractEventsOffline } from './extract-events.ts';
import { PNPM_BLOCK, block, entry, msg, workBlock } from './test-fixtures.ts';

const extract = (input: ExtractionInput) => extractEventsOffline(input).events;
const only = (events: ExtractedEvent[]) => {
  expect(events).toHaveLength(1);
  return events[0] as ExtractedEvent;
};

describe('offline memory-event extractor', () => {
  describe('§15 S1: npm → pnpm', () => {
    const [e2, e3, e4] = extract(PNPM_BLOCK);

    it('gives one event per message, each citing its own message', () => {
      expect(extract(PNPM_BLOCK)).toHaveLength(3);
      expect([e2, e3, e4].map((e) => e?.sourceMessageIds)).toEqual([['m2'], ['m3'], ['m4']]);
      expect(e2?.quotes).toEqual([
        'We switched to pnpm; installs are faster and it suits our multi-package layout.',
      ]);
    });

    it('E2 is a project change that supersedes E1 and nothing else', () => {
      expect(e2).toMatchObject({ scope: 'project', criticality: 'routine' });
      expect(e2?.temporal).toMatchObject({ eventType: 'change', status: 'occurred' });
      expect(e2?.relations.supersedesEventIds).toEqual(['evt_e1']);
      expect(e2?.tags).toContain('pnpm');
    });

    it('E3 is pending verification, never passed or done', () => {
      expect(e3?.title).toBe('CI still has to be verified after the migration');
      expect(e3?.temporal.status).toBe('ongoing');
      expect(e3?.temporal.eventType).not.toBe('task_completed');
      expect(e3?.scope).toBe('project');
    });

    it('E4 is a plan for the week after the mention, not evidence of completion (MM-EVT-4)', () => {
      expect(e4?.temporal).toMatchObject({
        mentionedAt: '2024-05-06T10:02:00Z',
        happenedStart: '2024-05-13',
        happenedEnd: '2024-05-19',
        originalText: 'next week',
        precision: 'range',
        basis: 'relative',
        status: 'planned',
        eventType: 'plan',
      });
    });

    it('relates nothing to the unrelated timeline event', () => {
      for (const e of [e2, e3, e4]) {
        const r = e?.relations;
        expect([
          r?.sameEventId,
          ...(r?.supersedesEventIds ?? []),
          ...(r?.relatedEventIds ?? []),
        ]).not.toContain('evt_trip');
      }
    });
  });

  it('§15 S2: the school talk said on 2023-06-09 happened in the week before', () => {
    const talk = only(
      extract(
        block([
          msg(
            'd1',
            'user',
            'Hey Mel! I gave a talk at a school last week.',
            '2023-06-09T13:56:00Z',
            'Caroline',
          ),
          msg(
            'd2',
            'assistant',
            'Wow, Caroline! What was it about?',
            '2023-06-09T13:57:00Z',
            'Melanie',
          ),
        ]),
      ),
    );
    expect(talk.title).toBe('Caroline: gave a talk at a school');
    expect(talk.summary).toBe('Caroline: I gave a talk at a school last week.');
    expect(talk.quotes).toEqual(['I gave a talk at a school last week.']);
    expect(talk.sourceMessageIds).toEqual(['d1']);
    expect(talk.scope).toBe('user');
    expect(talk.temporal).toMatchObject({
      mentionedAt: '2023-06-09T13:56:00Z',
      happenedStart: '2023-05-29',
      happenedEnd: '2023-06-04',
      precision: 'range',
      basis: 'relative',
      originalText: 'last week',
      status: 'occurred',
    });
    expect(talk.temporal.participants).toContain('Caroline');
    expect(talk.temporal.participants).not.toContain('Melanie');
  });

  it("keeps the rest of the event's message in its summary, greetings left out", () => {
    const visit = only(
      extract(
        block([
          msg(
            'v1',
            'user',
            'Hey Mel! I went to the animal shelter yesterday. Have you ever held a golden retriever puppy?',
            '2023-06-09T13:56:00Z',
            'Caroline',
          ),
        ]),
      ),
    );
    expect(visit.quotes).toEqual(['I went to the animal shelter yesterday.']);
    // A later question about the puppies finds this event, though its sentence is no event.
    expect(visit.summary).toBe(
      'Caroline: I went to the animal shelter yesterday. (same message: Have you ever held a golden retriever puppy?)',
    );
  });

  it('extracts Chinese facts, decisions and plans with their times', () => {
    const events = extract(
      block([
        msg(
          'z1',
          'user',
          '我去年夏天去了北京。我们决定下周三发布2.0版本，李明负责测试。',
          '2023-06-09T10:00:00+08:00',
          '王芳',
        ),
      ]),
    );
    const [trip, release] = events;
    expect(events).toHaveLength(2);
    expect(trip?.temporal).toMatchObject({
      happenedStart: '2022-06-01',
      happenedEnd: '2022-08-31',
      precision: 'range',
      basis: 'relative',
      originalText: '去年夏天',
      status: 'occurred',
    });
    expect(trip?.scope).toBe('user');
    expect(['decision', 'release']).toContain(release?.temporal.eventType);
    expect(release?.temporal).toMatchObject({
      happenedStart: '2023-06-14',
      precision: 'day',
      originalText: '下周三',
      status: 'planned',
    });
    expect(release?.temporal.participants).toEqual(['王芳', '李明']);
    expect(release?.scope).toBe('project');
  });

  it('resolves yesterday, next month, a year and an explicit date against each message', () => {
    const events = extract(
      block([
        msg('a', 'user', 'Yesterday I adopted a puppy named Biscuit.', '2024-03-01T18:00:00Z'),
        msg('b', 'user', 'Next month we are moving to Lisbon.', '2024-03-01T18:01:00Z'),
        msg('c', 'user', 'I started learning the cello in 2022.', '2024-03-01T18:02:00Z'),
        msg('d', 'user', 'I ran my first marathon on May 7, 2023.', '2024-03-01T18:03:00Z'),
      ]),
    );
    expect(
      events.map((e) => [e.temporal.happenedStart, e.temporal.happenedEnd, e.temporal.precision]),
    ).toEqual([
      ['2024-02-29', '2024-02-29', 'day'],
      ['2024-04-01', '2024-04-30', 'month'],
      ['2022-01-01', '2022-12-31', 'year'],
      ['2023-05-07', '2023-05-07', 'day'],
    ]);
    expect(events.map((e) => e.temporal.basis)).toEqual([
      'relative',
      'relative',
      'explicit',
      'explicit',
    ]);
    expect(events.map((e) => e.temporal.status)).toEqual([
      'occurred',
      'planned',
      'occurred',
      'occurred',
    ]);
  });

  it('never guesses a time that was not said (MM-EVT-4)', () => {
    const e = only(
      extract(block([msg('a', 'user', 'I adopted a puppy.', '2024-03-01T18:00:00Z')])),
    );
    expect(e.temporal).toMatchObject({
      precision: 'unknown',
      basis: 'unknown',
      mentionedAt: '2024-03-01T18:00:00Z',
    });
    expect(e.temporal.happenedStart).toBeUndefined();
    expect(e.temporal.originalText).toBeUndefined();
    const undated = only(
      extract(block([msg('a', 'user', 'I adopted a puppy last week.', 'not a date')])),
    );
    expect(undated.temporal).toMatchObject({
      originalText: 'last week',
      precision: 'unknown',
      basis: 'unknown',
    });
    expect(undated.temporal.mentionedAt).toBeUndefined();
    expect(undated.temporal.happenedStart).toBeUndefined();
  });

  it('finds nothing in chit-chat', () => {
    const fillers = [
      'ok',
      'thanks',
      'Hi!',
      'Hello :)',
      'Haha, that’s awesome!',
      'Sounds great!',
      'Wow, cool!',
      '嗯嗯，好的！',
      '谢谢！',
      'Good to see you!',
    ];
    expect(
      extract(
        block(
          fillers.map((t, i) =>
            msg(
              `f${i}`,
              i % 2 ? 'assistant' : 'user',
              t,
              '2024-05-06T10:00:00Z',
              i % 2 ? 'Mel' : 'Caro',
            ),
          ),
        ),
      ),
    ).toEqual([]);
  });

  it('finds nothing in questions', () => {
    const questions = [
      'What is your favourite book?',
      'How was your weekend?',
      'Did you see the game last night?',
      'Can you explain how pnpm workspaces work?',
      '你周末过得怎么样？',
      'What do you think about moving to Boston?',
    ];
    expect(
      extract(block(questions.map((t, i) => msg(`q${i}`, 'user', t, '2024-05-06T10:00:00Z')))),
    ).toEqual([]);
  });

  it('keeps only results from routine agent steps (MM-EVT-11)', () => {
    const at = '2024-05-06T10:00:00Z';
    const noise = block([
      msg('u1', 'user', 'ok', at),
      msg(
        'a1',
        'assistant',
        'Let me read src/index.ts. I ran the tests again. Reading package.json now.',
        at,
      ),
      msg('t1', 'tool', '{"name":"read_file","arguments":{"path":"src/index.ts"}}', at),
      {
        ...msg('a2', 'assistant', 'I opened the config file and checked the logs.', at),
        toolCalls: [{ name: 'run_tests', result: { ok: true } }],
      },
    ]);
    expect(extract(noise)).toEqual([]);
    const withResult = block([
      ...noise.messages,
      msg('a3', 'assistant', 'I ran the tests again and they all passed.', at),
    ]);
    const result = only(extract(withResult));
    expect(result.temporal.eventType).toBe('task_completed');
    expect(result.sourceMessageIds).toEqual(['a3']);
  });

  it('scopes a one-off request to the session and lasting guidance to the user', () => {
    const at = '2024-05-06T10:00:00Z';
    const [short, arrows, lasting] = extract(
      block([
        msg('r1', 'user', 'Keep this answer short.', at),
        msg('r2', 'user', 'Could you align the arrows in this figure?', at),
        msg('r3', 'user', 'From now on, always answer in British English.', at),
      ]),
    );
    expect([short?.scope, arrows?.scope, lasting?.scope]).toEqual(['session', 'session', 'user']);
    expect([short?.criticality, arrows?.criticality, lasting?.criticality]).toEqual([
      'routine',
      'routine',
      'preference',
    ]);
  });

  it('sets criticality for preferences, identity and safety', () => {
    const at = '2024-05-06T10:00:00Z';
    const events = extract(
      block([
        msg('p', 'user', 'I prefer green tea to coffee.', at),
        msg('i', 'user', 'My name is Ana and I work as a nurse.', at),
        msg('s', 'user', 'I am allergic to peanuts.', at),
        msg('z', 'user', '我喜欢喝咖啡。', at),
      ]),
    );
    expect(events.map((e) => e.criticality)).toEqual([
      'preference',
      'identity',
      'safety',
      'preference',
    ]);
    expect(events.every((e) => e.scope === 'user')).toBe(true);
  });

  it('keeps a trailing remark with the event it describes', () => {
    const e = only(
      extract(
        block([
          msg(
            'a',
            'user',
            'I went to a support group yesterday. It was so powerful.',
            '2023-05-08T13:56:00Z',
            'Caroline',
          ),
        ]),
      ),
    );
    expect(e.quotes).toEqual(['I went to a support group yesterday.', 'It was so powerful.']);
    expect(e.temporal.happenedStart).toBe('2023-05-07');
  });

  it('links a retelling to its timeline event by same, and relations name only timeline ids', () => {
    const timeline = [
      entry(
        'evt_talk',
        'Caroline: gave a talk at a school',
        'Caroline: I gave a talk at a school about my journey.',
        'other',
        { scope: 'user' },
      ),
    ];
    const [retold] = extract(
      block(
        [
          msg(
            'a',
            'user',
            'The talk at the school about my journey went well.',
            '2023-06-10T10:00:00Z',
            'Caroline',
          ),
        ],
        timeline,
      ),
    );
    expect(retold?.relations.sameEventId).toBe('evt_talk');
    const none = extract(
      block([msg('a', 'user', 'We switched to pnpm.', '2024-05-06T10:00:00Z')], []),
    );
    expect(none[0]?.relations).toEqual({
      supersedesEventIds: [],
      conflictsWithEventIds: [],
      relatedEventIds: [],
    });
  });

  it('merges word-for-word repeats of one card, uniting their sources (MM-EVT-16)', () => {
    const at = '2024-05-06T10:00:00Z';
    const e = only(
      extract(
        block([
          msg('x1', 'user', 'We switched to pnpm.', at),
          msg('x2', 'user', 'We switched to pnpm.', at),
        ]),
      ),
    );
    expect(e.sourceMessageIds).toEqual(['x1', 'x2']);
  });

  it('respects the limits and cites only ids it was given', () => {
    const long = `I decided to ${'rewrite the parser and '.repeat(200)}ship it.`;
    const input = block([
      msg('l', 'user', long, '2024-05-06T10:00:00Z', 'Caroline'),
      ...workBlock().messages,
    ]);
    const events = extract(input);
    const ids = new Set(input.messages.map((m) => m.messageId));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(codePointLength(e.title)).toBeLessThanOrEqual(160);
      expect(codePointLength(e.summary)).toBeLessThanOrEqual(2000);
      expect(e.tags.length).toBeLessThanOrEqual(12);
      expect(e.quotes.length).toBeLessThanOrEqual(12);
      for (const id of e.sourceMessageIds) expect(ids.has(id)).toBe(true);
    }
    expect(ExtractionOutput.parse({ events })).toEqual({ events });
  });

  it('is deterministic: the same block gives byte-identical output', () => {
    for (const input of [PNPM_BLOCK, workBlock()]) {
      const first = JSON.stringify(extractEventsOffline(input));
      expect(JSON.stringify(extractEventsOffline(structuredClone(input)))).toBe(first);
    }
  });

  // Its speed is measured by bench/offline-model.bench.ts (docs/benchmarks.md), not here.
  it('extracts a bounded set of events from a 12-turn block of multi-KB messages', () => {
    const input = workBlock();
    expect(input.messages.length).toBe(24);
    expect(input.messages.reduce((n, m) => n + m.content.length, 0)).toBeGreaterThan(30_000);
    const events = extractEventsOffline(input).events;
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(40);
  });

  describe('time: which way a date without a year points (issue 37)', () => {
    const at = '2026-11-30T10:00:00Z';
    const one = (text: string) => only(extract(block([msg('t', 'user', text, at, 'Kai')])));

    it('a moved deadline said before it comes is the next January 10, not the last', () => {
      expect(one('We moved the beta deadline to January 10.').temporal).toMatchObject({
        happenedStart: '2027-01-10',
        originalText: 'January 10',
        precision: 'day',
        status: 'planned',
      });
      expect(one('beta的截止日期推迟到1月10日。').temporal.happenedStart).toBe('2027-01-10');
    });

    it('a past trip in a month without a year is the last one', () => {
      expect(one('I went to Lisbon in March.').temporal).toMatchObject({
        happenedStart: '2026-03-01',
        happenedEnd: '2026-03-31',
        status: 'occurred',
      });
    });

    it('"until December 8" is a span from the mention to that day, under way', () => {
      const e = one('Tom is on vacation until December 8, so Priya covers infra.');
      expect(e.temporal).toMatchObject({
        happenedStart: '2026-11-30',
        happenedEnd: '2026-12-08',
        originalText: 'until December 8',
        precision: 'range',
        status: 'ongoing',
      });
      expect(e.temporal.participants).toEqual(['Kai', 'Tom', 'Priya']);
    });
  });
});
