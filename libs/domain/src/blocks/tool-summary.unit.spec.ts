import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from './tokens.ts';
import {
  guessToolNames,
  looksLikeRawToolCall,
  parseToolJson,
  summarizeToolResult,
} from './tool-summary.ts';

describe('summarizeToolResult (MM-BLK-13)', () => {
  describe('derived acceptance vectors', () => {
    it('{error:"boom"} -> failed: boom', () => {
      expect(summarizeToolResult({ error: 'boom' })).toBe('failed: boom');
    });
    it('{ok:false} -> not completed', () => {
      expect(summarizeToolResult({ ok: false })).toBe('not completed');
    });
    it('{events:[x]} -> events: 1', () => {
      expect(summarizeToolResult({ events: ['x'] })).toBe('events: 1');
    });
  });

  it('parses a string result as JSON before summarising it', () => {
    expect(summarizeToolResult('{"events":[1,2]}')).toBe('events: 2');
    expect(summarizeToolResult('{"ok":true}')).toBe('completed');
  });

  it('keeps the first 160 code points of a non-JSON string', () => {
    expect(summarizeToolResult('done')).toBe('done');
    const long = 'x'.repeat(300);
    expect(summarizeToolResult(long)).toBe('x'.repeat(160));
    const emoji = '😀'.repeat(200);
    expect(summarizeToolResult(emoji)).toBe('😀'.repeat(160));
  });

  it('renders numbers and booleans as text', () => {
    expect(summarizeToolResult(42)).toBe('42');
    expect(summarizeToolResult(false)).toBe('false');
    expect(summarizeToolResult('7')).toBe('7');
  });

  it('says so when there is no result', () => {
    expect(summarizeToolResult(undefined)).toBe('no result');
    expect(summarizeToolResult(null)).toBe('no result');
    expect(summarizeToolResult('   ')).toBe('empty result');
  });

  it('cuts an error to 140 code points after "failed: "', () => {
    expect(summarizeToolResult({ error: '错'.repeat(200) })).toBe(`failed: ${'错'.repeat(140)}`);
  });

  it('applies the rules in spec order, first match wins', () => {
    expect(summarizeToolResult({ error: 'boom', summary: 's', events: [1], ok: true })).toBe(
      'failed: boom',
    );
    expect(summarizeToolResult({ summary: 'found 2', message: 'm', events: [1] })).toBe('found 2');
    expect(summarizeToolResult({ message: 'saved', events: [1] })).toBe('saved');
    expect(summarizeToolResult({ items: [], ok: true })).toBe('items: 0');
    expect(summarizeToolResult({ ok: true })).toBe('completed');
  });

  it('treats a blank error as no error', () => {
    expect(summarizeToolResult({ error: '', ok: true })).toBe('completed');
  });

  it('counts every array field except the argument keys', () => {
    expect(
      summarizeToolResult({
        arguments: [1],
        params: [1],
        input: [1],
        request: [1],
        events: [1],
        nodes: [1, 2],
      }),
    ).toBe('events: 1, nodes: 2');
    expect(summarizeToolResult({ arguments: [1, 2, 3] })).toBe('structured result returned');
  });

  it('falls back to "structured result returned"', () => {
    expect(summarizeToolResult({ value: 3 })).toBe('structured result returned');
    expect(summarizeToolResult([1, 2])).toBe('structured result returned');
  });

  it('never exceeds 160 code points', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string({ unit: 'grapheme' })), (result) => {
        expect(codePointLength(summarizeToolResult(result))).toBeLessThanOrEqual(160);
      }),
    );
  });
});

describe('parseToolJson (MM-BLK-10)', () => {
  it('recognises name + arguments and name + parameters', () => {
    expect(parseToolJson('{"name":"search","arguments":{"q":"x"}}')).toEqual({
      names: ['search'],
      summary: 'no result',
    });
    expect(parseToolJson('{"name":"search","parameters":{}}')?.names).toEqual(['search']);
  });

  it('recognises `tool` and `function.name`, and summarises the result', () => {
    expect(parseToolJson('{"tool":"search_events","result":{"events":[1]}}')).toEqual({
      names: ['search_events'],
      summary: 'events: 1',
    });
    expect(parseToolJson('{"function":{"name":"run","arguments":"{}"}}')?.names).toEqual(['run']);
  });

  it('strips a code fence first', () => {
    const text = '```json\n[{"name":"a","arguments":{}},{"tool":"b","output":"ok"}]\n```';
    expect(parseToolJson(text)).toEqual({ names: ['a', 'b'], summary: 'ok' });
  });

  it('reads an OpenAI-style tool_calls wrapper', () => {
    const text = JSON.stringify({
      tool_calls: [{ id: '1', function: { name: 'lookup', arguments: '{"secret":1}' } }],
    });
    expect(parseToolJson(text)?.names).toEqual(['lookup']);
  });

  it('rejects text, broken JSON and JSON without a tool shape', () => {
    expect(parseToolJson('The build passed.')).toBeNull();
    expect(parseToolJson('{"name":"x","arguments":')).toBeNull();
    expect(parseToolJson('{"name":"x"}')).toBeNull();
    expect(parseToolJson('[]')).toBeNull();
    expect(parseToolJson('42')).toBeNull();
  });

  it('rejects an array that only partly consists of tool calls', () => {
    expect(parseToolJson('[{"tool":"a"},{"title":"a search hit"}]')).toBeNull();
  });
});

describe('raw tool-call heuristics (MM-BLK-10, L3)', () => {
  it('spots tool_calls, "function" and "arguments"', () => {
    expect(looksLikeRawToolCall('{"tool_calls": [')).toBe(true);
    expect(looksLikeRawToolCall('{"function": {')).toBe(true);
    expect(looksLikeRawToolCall('"arguments": "{')).toBe(true);
    expect(looksLikeRawToolCall('the function arguments were wrong')).toBe(false);
  });

  it('extracts unique names, or unknown', () => {
    expect(guessToolNames('{"name": "a", "x": {"name":"b"}, "name": "a"')).toEqual(['a', 'b']);
    expect(guessToolNames('"arguments": {')).toEqual(['unknown']);
  });
});
