import { describe, expect, it } from 'vitest';
import { compactForModel, type CompactedValue } from './compaction.ts';
import type { LayerMessage, LayerToolCall } from './layer-message.ts';
import { safeJsonStringify } from './safe-json.ts';

const firstCall = (messages: LayerMessage[]): LayerToolCall => {
  const call = messages[0]?.toolCalls?.[0];
  if (call === undefined) throw new Error('expected a tool call');
  return call;
};

const withCall = (call: LayerToolCall): LayerMessage[] => [
  { role: 'assistant', content: 'Running it.', toolCalls: [call] },
];

describe('compactForModel (MM-BLK-15)', () => {
  it('acceptance: a 300-line code argument becomes the marker, the rest and the verdict stay', () => {
    const code = Array.from(
      { length: 300 },
      (_, i) => `result_${i} = compute_value(${i}) * factor  # line ${i}`,
    ).join('\n');
    const log =
      Array.from({ length: 60 }, (_, i) => `step ${i}: ok`).join('\n') + '\nFINAL_STATUS=passed';
    const input = withCall({
      name: 'run_python',
      arguments: { code, language: 'python', timeoutSeconds: 30 },
      result: log,
    });
    const output = compactForModel(input);
    const call = firstCall(output);
    expect(call.arguments).toEqual({
      code: `[code omitted: ${Array.from(code).length} chars; full value remains in L5]`,
      language: 'python',
      timeoutSeconds: 30,
    });
    expect(safeJsonStringify(call.result)).toContain('FINAL_STATUS=passed');
    expect(safeJsonStringify(output).length).toBeLessThan(safeJsonStringify(input).length * 0.25);
  });

  it('matches code keys ignoring case, "_" and "-", and keeps short or other strings', () => {
    const long = 'x'.repeat(241);
    const output = compactForModel(
      withCall({
        name: 't',
        arguments: {
          Source_Code: long,
          COMMAND: long,
          'pro-gram': long,
          script: 'y'.repeat(240),
          description: long,
          nested: { source: long },
        },
      }),
    );
    expect(firstCall(output).arguments).toEqual({
      Source_Code: '[Source_Code omitted: 241 chars; full value remains in L5]',
      COMMAND: '[COMMAND omitted: 241 chars; full value remains in L5]',
      'pro-gram': '[pro-gram omitted: 241 chars; full value remains in L5]',
      script: 'y'.repeat(240),
      description: long,
      nested: { source: '[source omitted: 241 chars; full value remains in L5]' },
    });
  });

  it('counts code points, not UTF-16 units', () => {
    const emoji = '😀'.repeat(200);
    expect(emoji.length).toBe(400);
    const output = compactForModel(withCall({ name: 't', arguments: { code: emoji } }));
    expect(firstCall(output).arguments).toEqual({ code: emoji });
  });

  it('looks inside arguments given as a JSON string and keeps them a string', () => {
    const args = JSON.stringify({ command: 'echo hi; '.repeat(40), cwd: '/repo' });
    const output = compactForModel(withCall({ name: 'shell', arguments: args }));
    expect(firstCall(output).arguments).toBe(
      '{"command":"[command omitted: 360 chars; full value remains in L5]","cwd":"/repo"}',
    );
  });

  it('compacts arguments still over 1,200 chars into head 48 % and tail 20 %', () => {
    const args = { notes: 'n'.repeat(1300) };
    const serialized = JSON.stringify(args);
    const total = serialized.length;
    const compacted = firstCall(compactForModel(withCall({ name: 't', arguments: args })))
      .arguments as CompactedValue;
    const head = Math.floor(total * 0.48);
    const tail = Math.floor(total * 0.2);
    expect(compacted).toEqual({
      originalChars: total,
      head: serialized.slice(0, head),
      tail: serialized.slice(total - tail),
      omittedChars: total - head - tail,
    });
  });

  it('leaves arguments of exactly 1,200 chars alone', () => {
    const args = 'a'.repeat(1200);
    expect(firstCall(compactForModel(withCall({ name: 't', arguments: args }))).arguments).toBe(
      args,
    );
  });

  it('compacts results over 2,400 chars with a summary', () => {
    const result = { events: Array.from({ length: 400 }, (_, i) => ({ id: `evt_${i}` })) };
    const compacted = firstCall(compactForModel(withCall({ name: 'search', result })))
      .result as CompactedValue;
    const serialized = JSON.stringify(result);
    expect(compacted.originalChars).toBe(serialized.length);
    expect(compacted.summary).toBe('events: 400');
    expect(compacted.head).toBe(serialized.slice(0, Math.floor(serialized.length * 0.48)));
    expect(compacted.tail).toBe(serialized.slice(-Math.floor(serialized.length * 0.2)));
    const small = { events: [1, 2] };
    expect(firstCall(compactForModel(withCall({ name: 's', result: small }))).result).toBe(small);
  });

  it('keeps the head 60 % and tail 20 % of a tool message over 2,400 chars', () => {
    const content = 'H'.repeat(1500) + 'M'.repeat(500) + 'T'.repeat(1000);
    const [message] = compactForModel([{ role: 'tool', content }]);
    expect(message?.content).toBe(
      'H'.repeat(1500) +
        'M'.repeat(300) +
        '\n[... 600 chars omitted; full text remains in L5 ...]\n' +
        'T'.repeat(600),
    );
    const fits = 'x'.repeat(2400);
    expect(compactForModel([{ role: 'tool', content: fits }])[0]?.content).toBe(fits);
  });

  it('cuts tool messages by code points', () => {
    const content = '中'.repeat(2500);
    const [message] = compactForModel([{ role: 'tool', content }]);
    expect(message?.content).toBe(
      '中'.repeat(1500) +
        '\n[... 500 chars omitted; full text remains in L5 ...]\n' +
        '中'.repeat(500),
    );
  });

  it('leaves user and assistant text alone and never mutates its input', () => {
    const long = 'u'.repeat(5000);
    const input: LayerMessage[] = [
      { role: 'user', content: long },
      {
        role: 'assistant',
        content: long,
        toolCalls: [{ name: 't', arguments: { code: long }, result: long }],
      },
      { role: 'tool', content: long },
    ];
    const before = structuredClone(input);
    const output = compactForModel(input);
    expect(input).toEqual(before);
    expect(output[0]?.content).toBe(long);
    expect(output[1]?.content).toBe(long);
    expect(output[2]?.content).not.toBe(long);
  });
});
