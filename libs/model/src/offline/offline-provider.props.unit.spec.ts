import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlockSummaryInput, SummaryMessage } from '../model-port.ts';
import { validateBlockSummary, type BlockSummaryOutput } from '../summary.schema.ts';
import { codePointLength } from '../text.ts';
import { summarizeOffline } from './offline-provider.ts';

const ROLES = ['user', 'assistant', 'tool', 'system'] as const;
const WORDS = [
  'We',
  'decided',
  'to',
  'switch',
  'pnpm',
  'Caroline',
  'next',
  'week',
  'the',
  'project',
  'ok',
  'thanks',
  '2024',
  'I',
  'prefer',
  'tea',
  'Dr.',
  'e.g.',
  '我们',
  '决定',
  '下周',
  '发布',
  '李明',
  '项目',
  '好的',
  '谢谢',
  '测试',
  '喜欢',
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
];

/** Arbitrary text of every kind, plus word salad that actually reaches the heuristics. */
const content = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc
    .array(fc.constantFrom(...WORDS), { maxLength: 40 })
    .chain((words) => fc.constantFrom(words.join(' '), words.join(''))),
);
const name = fc.option(fc.oneof(fc.constantFrom('Caroline', 'Melanie', '王芳'), fc.string()), {
  nil: undefined,
});
const toolCall = fc.record({
  name: fc.string({ maxLength: 12 }),
  result: fc.option(fc.jsonValue(), { nil: undefined }),
});
const message = fc.record({
  role: fc.constantFrom(...ROLES),
  name,
  content,
  toolCalls: fc.option(fc.array(toolCall, { maxLength: 2 }), { nil: undefined }),
});
const block = fc
  .array(message, { minLength: 1, maxLength: 12 })
  .filter((ms) => ms.some((m) => m.content.trim() !== ''))
  .map((ms): BlockSummaryInput => ({
    blockId: 'blk_p',
    threadId: 'thr_p',
    messages: ms.map((m, i) => ({
      ...m,
      messageId: `msg_${i}`,
      occurredAt: '2024-01-01T00:00:00Z',
    })),
  }));

function toolPrefixes(messages: readonly SummaryMessage[]): string[] {
  return messages.flatMap((m) => [
    ...(m.role === 'tool' ? [`Tool ${m.name?.trim() || 'result'}: `] : []),
    ...(m.toolCalls ?? []).map((c) => `Tool ${c.name.trim() || 'tool'}: `),
  ]);
}

/** Extractive: a substring of a message, optionally after a "<speaker>: " label. */
function isExtractive(point: string, out: BlockSummaryOutput, messages: readonly SummaryMessage[]) {
  const inSomeMessage = (text: string) => messages.some((m) => m.content.includes(text));
  if (inSomeMessage(point) || point === out.summary) return true;
  if (toolPrefixes(messages).some((prefix) => point.startsWith(prefix))) return true;
  return messages.some((m) => {
    const label = `${m.name?.trim() ?? ''}: `;
    return label !== ': ' && point.startsWith(label) && inSomeMessage(point.slice(label.length));
  });
}

describe('offline provider properties', () => {
  it('always yields valid, bounded, extractive layers', () => {
    fc.assert(
      fc.property(block, (input) => {
        const out = summarizeOffline(input);
        expect(validateBlockSummary(out)).toEqual(out);
        expect(out.title.trim()).not.toBe('');
        expect(codePointLength(out.title)).toBeLessThanOrEqual(60);
        expect(out.tags.length).toBeGreaterThanOrEqual(2);
        expect(out.tags.length).toBeLessThanOrEqual(5);
        expect(new Set(out.tags.map((t) => t.toLowerCase())).size).toBe(out.tags.length);
        expect(out.keyPoints.length).toBeGreaterThanOrEqual(1);
        expect(out.keyPoints.length).toBeLessThanOrEqual(8);
        for (const point of out.keyPoints)
          expect(isExtractive(point, out, input.messages)).toBe(true);
        expect(summarizeOffline(structuredClone(input))).toEqual(out);
      }),
      { numRuns: 300 },
    );
  });

  /** Distinct statements on unrelated topics: none is a filler or a near-duplicate of another. */
  const STATEMENTS = [
    'We decided to switch the monorepo from npm to pnpm.',
    'Caroline moved to Berlin in March 2023.',
    'I prefer green tea over coffee in the morning.',
    'The release deadline is Friday at noon.',
    'Melanie painted a lake sunrise last year.',
    'Our Postgres backups failed twice this week.',
    '李明下周三负责发布测试版本。',
    '我更喜欢先收集用户反馈再正式上线。',
    '王芳把会议改到了周四下午。',
    'The dentist appointment is on June 3.',
    'We must keep the API backwards compatible.',
    'Docker builds now take four minutes instead of nine.',
  ];

  it('keeps 3–8 key points, or every statement when a block has fewer', () => {
    const statements = fc.uniqueArray(fc.constantFrom(...STATEMENTS), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(statements, fc.boolean(), (chosen, pairUp) => {
        const texts = pairUp ? pairs(chosen) : chosen;
        const out = summarizeOffline({
          blockId: 'blk_s',
          threadId: 'thr_s',
          messages: texts.map((content, i) => ({
            messageId: `msg_${i}`,
            role: i % 2 === 0 ? 'user' : 'assistant',
            content,
            occurredAt: '2024-01-01T00:00:00Z',
          })),
        });
        expect(out.keyPoints.length).toBeGreaterThanOrEqual(Math.min(3, chosen.length));
        expect(out.keyPoints.length).toBeLessThanOrEqual(Math.min(8, chosen.length));
        for (const point of out.keyPoints) expect(chosen).toContain(point);
        expect(out.shouldExtract).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

function pairs(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < texts.length; i += 2) out.push(texts.slice(i, i + 2).join(' '));
  return out;
}
