import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExtractionOutput, type TimelineEntry } from '../../extraction.schema.ts';
import type { ExtractionInput, SummaryMessage } from '../../model-port.ts';
import { codePointLength } from '../../text.ts';
import { extractEventsOffline } from './extract-events.ts';

const WORDS = [
  'I',
  'We',
  'gave',
  'a',
  'talk',
  'decided',
  'switched',
  'to',
  'pnpm',
  'npm',
  'from',
  'Caroline',
  'with',
  'Jon',
  'last',
  'next',
  'week',
  'month',
  'summer',
  'yesterday',
  'Saturday',
  'May',
  '7,',
  '2023',
  'in',
  '2022',
  'will',
  'finished',
  'cancelled',
  'prefer',
  'allergic',
  'project',
  'still',
  'Keep',
  'this',
  'answer',
  'short',
  'ran',
  'the',
  'tests',
  'ok',
  'thanks',
  'Dr.',
  '我',
  '我们',
  '决定',
  '去年夏天',
  '下周三',
  '上周',
  '下个月',
  '发布',
  '李明',
  '喜欢',
  '过敏',
  '了',
  '好的',
  '.',
  '!',
  '?',
  '。',
  '！',
  '？',
  ',',
  '，',
  '\n',
  '```',
  '😀',
];

/** Arbitrary text of every kind, plus word salad that actually reaches the heuristics. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(fc.constantFrom(...WORDS), { maxLength: 40 })
    .chain((words) => fc.constantFrom(words.join(' '), words.join(''))),
);

const occurredAt = fc.oneof(
  fc
    .date({
      min: new Date('1900-01-01T00:00:00Z'),
      max: new Date('2200-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2023-06-09T13:56:00+08:00',
    '2024-02-29',
    '',
    'yesterday',
    '2023-02-30T00:00:00Z',
  ),
  fc.string(),
);

const message: fc.Arbitrary<Omit<SummaryMessage, 'messageId'>> = fc.record(
  {
    role: fc.constantFrom('user', 'assistant', 'tool', 'system'),
    name: fc.oneof(fc.constantFrom('Caroline', 'Melanie', '王芳', 'assistant', ''), fc.string()),
    content: text,
    occurredAt,
  },
  { requiredKeys: ['role', 'content', 'occurredAt'] },
);

const timelineEntry: fc.Arbitrary<TimelineEntry> = fc.record({
  id: fc.oneof(fc.constantFrom('evt_a', 'evt_b', ''), fc.string()),
  title: text,
  summary: text,
  scope: fc.constantFrom('user', 'project', 'session'),
  criticality: fc.constantFrom('routine', 'preference', 'identity', 'safety'),
  status: fc.constantFrom('active', 'superseded'),
  supersededBy: fc.constant(null),
  temporal: fc.record(
    { eventType: fc.oneof(fc.string(), fc.constantFrom('change', 'other')) },
    { requiredKeys: [] },
  ),
});

const input: fc.Arbitrary<ExtractionInput> = fc
  .record({
    messages: fc.array(message, { maxLength: 10 }),
    timeline: fc.array(timelineEntry, { maxLength: 6 }),
  })
  .map(({ messages, timeline }) => ({
    blockId: 'blk_p',
    threadId: 'thread_p',
    messages: messages.map((m, i) => ({ ...m, messageId: `msg_${i}` })),
    timeline,
  }));

describe('offline extractor properties', () => {
  it('always returns valid, bounded output that cites only what it was given', () => {
    fc.assert(
      fc.property(input, (block) => {
        const out = extractEventsOffline(block);
        expect(ExtractionOutput.parse(out)).toEqual(out);
        const ids = new Set(block.messages.map((m) => m.messageId));
        const timelineIds = new Set(block.timeline.map((t) => t.id));
        for (const e of out.events) {
          expect(codePointLength(e.title)).toBeLessThanOrEqual(160);
          expect(codePointLength(e.summary)).toBeLessThanOrEqual(2000);
          expect(e.tags.length).toBeLessThanOrEqual(12);
          expect(e.sourceMessageIds.length).toBeGreaterThan(0);
          for (const id of e.sourceMessageIds) expect(ids.has(id)).toBe(true);
          const r = e.relations;
          const named = [...r.supersedesEventIds, ...r.relatedEventIds, ...r.conflictsWithEventIds];
          if (r.sameEventId !== undefined) named.push(r.sameEventId);
          for (const id of named) expect(timelineIds.has(id)).toBe(true);
          // Quotes are verbatim: each is a prefix of a sentence of a cited message.
          const cited = block.messages.filter((m) => e.sourceMessageIds.includes(m.messageId));
          for (const q of e.quotes) expect(cited.some((m) => m.content.includes(q))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    // 300 blocks through the English tagger: seconds on a shared two-core machine.
  }, 60_000);

  it('supersedes exactly the active timeline entries about what changed, by their own ids', () => {
    const entryAbout = fc.record({
      base: timelineEntry,
      aboutNpm: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(entryAbout, { maxLength: 8 }), (entries) => {
        const timeline = entries.map(({ base, aboutNpm }, i) => ({
          ...base,
          id: `${base.id}#${i}`,
          title: aboutNpm ? 'The project uses npm' : `Ana went hiking ${i}`,
          summary: aboutNpm ? 'npm is the package manager.' : 'A trip to the hills.',
        }));
        const out = extractEventsOffline({
          blockId: 'blk_p',
          threadId: 'thread_p',
          messages: [
            {
              messageId: 'm',
              role: 'user',
              content: 'We switched from npm to pnpm.',
              occurredAt: '2024-05-06T10:00:00Z',
            },
          ],
          timeline,
        });
        const expected = timeline
          .filter((t, i) => entries[i]?.aboutNpm && t.status === 'active')
          .map((t) => t.id);
        expect(out.events[0]?.relations.supersedesEventIds).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('is a pure function of its input', () => {
    fc.assert(
      fc.property(input, (block) => {
        const once = JSON.stringify(extractEventsOffline(block));
        expect(JSON.stringify(extractEventsOffline(structuredClone(block)))).toBe(once);
      }),
      { numRuns: 100 },
    );
  });
});
