import { describe, expect, it } from 'vitest';
import { ExtractionOutput } from '../extraction.schema.ts';
import { BlockSummaryOutput } from '../summary.schema.ts';
import { checkAnswer, correctionTurn, extractJsonText } from './structured-output.ts';

const answer = (content: string, finishReason: string | null = 'stop') => ({
  content,
  finishReason,
  usage: null,
});

describe('extractJsonText', () => {
  it('unwraps fences and reasoning, and leaves plain JSON alone', () => {
    expect(extractJsonText('{"a":1}')).toBe('{"a":1}');
    expect(extractJsonText('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(extractJsonText('Here it is:\n```\n{"a":1}\n```\nDone.')).toBe('{"a":1}');
    expect(extractJsonText('<think>maybe {"a":0}</think>\n{"a":1}')).toBe('{"a":1}');
  });
});

describe('checkAnswer', () => {
  it('returns the parsed, normalised value', () => {
    const checked = checkAnswer(
      answer(
        JSON.stringify({
          title: ' T ',
          tags: [],
          summary: 'S.',
          keyPoints: [],
          shouldExtract: false,
        }),
      ),
      BlockSummaryOutput,
    );
    expect(checked).toEqual({
      ok: true,
      value: { title: 'T', tags: [], summary: 'S.', keyPoints: ['S.'], shouldExtract: false },
    });
  });

  it('describes each schema problem by path', () => {
    const checked = checkAnswer(
      answer(JSON.stringify({ events: [{ title: 'x', summary: '', temporal: {} }] })),
      ExtractionOutput,
    );
    expect(checked.ok).toBe(false);
    const problem = checked.ok ? '' : checked.problem;
    expect(problem).toMatch(/^the JSON does not match the required schema: /u);
    expect(problem).toContain('events.0.summary: ');
    expect(problem).toContain('events.0.scope: ');
  });

  it('distinguishes empty, unparsable and truncated answers', () => {
    expect(checkAnswer(answer('  '), BlockSummaryOutput)).toEqual({
      ok: false,
      problem: 'the answer was empty.',
    });
    const cut = checkAnswer(answer('{"title": "a', 'length'), BlockSummaryOutput);
    expect(cut.ok ? '' : cut.problem).toMatch(
      /^the answer is not valid JSON \(.+\)\. The answer was cut off/u,
    );
  });
});

describe('correctionTurn', () => {
  it('replays the answer and states the problem', () => {
    expect(correctionTurn('', 'the answer was empty.')).toEqual([
      { role: 'assistant', content: '(empty answer)' },
      {
        role: 'user',
        content:
          'Your previous answer was rejected: the answer was empty.\nReply again with the complete corrected JSON object only — no explanation and no code fences.',
      },
    ]);
  });
});
