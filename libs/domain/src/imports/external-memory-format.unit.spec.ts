import { describe, expect, it } from 'vitest';
import {
  EXTERNAL_MEMORY_V1,
  EXTERNAL_MEMORY_V2,
  parseExternalMemory,
  stripFences,
  type ParsedExternalMemory,
} from './external-memory-format.ts';

const candidate = (over: Record<string, unknown> = {}) => ({
  memoryKind: 'fact',
  category: 'project',
  title: 'Project X uses pnpm',
  summary: 'Project X switched from npm to pnpm for faster installs.',
  ...over,
});
const doc = (over: Record<string, unknown> = {}) => ({
  format: EXTERNAL_MEMORY_V2,
  sourceType: 'external_ai_memory_export',
  sourceSystem: 'OtherAI',
  coverage: 'partial',
  candidates: [candidate()],
  ...over,
});
const problems = (result: ParsedExternalMemory) => {
  expect(result.ok).toBe(false);
  return result.ok || result.reason !== 'invalid' ? [] : result.problems;
};

describe('external memory format (MM-IMP-2)', () => {
  it('given a v2 export, when read, then candidates come with their defaults filled in', () => {
    const result = parseExternalMemory(JSON.stringify(doc()));
    expect(result).toMatchObject({ ok: true, recovered: false });
    if (!result.ok) return;
    expect(result.document).toMatchObject({
      format: 'v2',
      sourceSystem: 'OtherAI',
      coverage: 'partial',
      uncertainItems: [],
    });
    expect(result.document.candidates).toEqual([
      {
        memoryKind: 'fact',
        category: 'project',
        title: 'Project X uses pnpm',
        summary: 'Project X switched from npm to pnpm for faster installs.',
        narrative: null,
        tags: [],
        quotes: [],
        temporal: {},
        scope: 'user',
        criticality: 'routine',
        confidence: null,
      },
    ]);
  });

  it('given a v1 export with legacy events[], when read, then its category splits into kind and category', () => {
    const result = parseExternalMemory(
      JSON.stringify({
        format: EXTERNAL_MEMORY_V1,
        events: [
          { title: 'Met Anna', summary: 'Met Anna at the fair.', category: 'event' },
          { title: 'Short answers', summary: 'Keep answers short.', category: 'preference' },
          { title: 'Works at Acme', summary: 'The user works at Acme.', category: 'career' },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document.format).toBe('v1');
    expect(result.document.sourceSystem).toBe('unknown');
    expect(result.document.candidates.map((c) => [c.memoryKind, c.category])).toEqual([
      ['event', null],
      ['preference', 'preference'],
      ['fact', 'career'],
    ]);
  });

  it('given a fenced export, when read, then the fence is stripped and nothing counts as recovered', () => {
    const fenced = '```json\n' + JSON.stringify(doc(), null, 2) + '\n```\n';
    expect(parseExternalMemory(fenced)).toMatchObject({ ok: true, recovered: false });
    expect(stripFences('```\n{"a":1}\n```')).toBe('{"a":1}');
  });

  it('given prose around the JSON or a trailing comma, when read, then it is recovered and marked so', () => {
    const text = `Here is your export:\n${JSON.stringify(doc()).replace(/}]/, '},]')}\nEnjoy!`;
    expect(parseExternalMemory(text)).toMatchObject({ ok: true, recovered: true });
  });

  it('given text that is no JSON at all, when read, then it is refused as not JSON', () => {
    expect(parseExternalMemory('I remember that you like tea.')).toEqual({
      ok: false,
      reason: 'not_json',
    });
    expect(parseExternalMemory('{ this is : not json }')).toEqual({
      ok: false,
      reason: 'not_json',
    });
  });

  it('given another format or none, when read, then the format field is named', () => {
    expect(problems(parseExternalMemory(JSON.stringify({ candidates: [] })))).toEqual([
      expect.objectContaining({ candidate: null, field: 'format' }),
    ]);
    expect(problems(parseExternalMemory('[1, 2]'))[0]?.field).toBe('format');
  });

  it('given a field over its limit, when read, then the problem names the candidate index and field', () => {
    const result = parseExternalMemory(
      JSON.stringify(
        doc({
          candidates: [
            candidate(),
            candidate(),
            candidate({ title: 'x'.repeat(161) }),
            candidate({ temporal: { originalText: '好'.repeat(201) } }),
            candidate({ quotes: Array.from({ length: 13 }, () => 'q') }),
            candidate({ summary: '   ' }),
            candidate({ sumary: 'typo' }),
          ],
        }),
      ),
    );
    expect(problems(result)).toEqual([
      { candidate: 2, field: 'title', message: 'longer than 160 characters' },
      { candidate: 3, field: 'temporal.originalText', message: 'longer than 200 characters' },
      { candidate: 4, field: 'quotes', message: expect.any(String) },
      { candidate: 5, field: 'summary', message: 'must not be blank' },
      { candidate: 6, field: 'sumary', message: 'unknown field "sumary"' },
    ]);
  });

  it('counts limits in code points: 160 emoji are a valid title, 161 are not', () => {
    const ok = parseExternalMemory(
      JSON.stringify(doc({ candidates: [candidate({ title: '😀'.repeat(160) })] })),
    );
    expect(ok.ok).toBe(true);
    const over = parseExternalMemory(
      JSON.stringify(doc({ candidates: [candidate({ title: '😀'.repeat(161) })] })),
    );
    expect(problems(over)[0]).toMatchObject({ candidate: 0, field: 'title' });
  });

  it('takes 200 candidates and refuses 201', () => {
    const many = (n: number) =>
      JSON.stringify(
        doc({
          candidates: Array.from({ length: n }, (_, i) => candidate({ title: `Memory ${i}` })),
        }),
      );
    expect(parseExternalMemory(many(200)).ok).toBe(true);
    expect(problems(parseExternalMemory(many(201)))).toEqual([
      { candidate: null, field: 'candidates', message: 'more than 200 candidates' },
    ]);
  });

  it('refuses a wrong sourceType, a bad coverage and both candidates and events', () => {
    expect(
      problems(parseExternalMemory(JSON.stringify(doc({ sourceType: 'chat' }))))[0]?.field,
    ).toBe('sourceType');
    expect(problems(parseExternalMemory(JSON.stringify(doc({ coverage: 'most' }))))[0]?.field).toBe(
      'coverage',
    );
    expect(problems(parseExternalMemory(JSON.stringify(doc({ events: [] }))))[0]?.field).toBe(
      'events',
    );
  });
});
