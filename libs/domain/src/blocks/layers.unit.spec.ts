import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LayerMessage } from './layer-message.ts';
import { deriveLayers, renderL3, renderL4, renderL5 } from './layers.ts';
import { REPEATED_PASTE_MARKER } from './paste-dedupe.ts';
import { estimateTokens } from './tokens.ts';

const LONG_PASTE =
  'Error: connect ECONNREFUSED 127.0.0.1:5432 at TCPConnectWrap.afterConnect while migrating.';

const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('renderL5 (MM-BLK-6)', () => {
  it('writes `role: content` per message, system included, and each raw trace', () => {
    const messages: LayerMessage[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: '  hi  ' },
      {
        role: 'assistant',
        content: 'Searching.',
        toolCalls: [{ name: 'search_events', arguments: { q: 'x' }, result: { events: [] } }],
      },
    ];
    expect(renderL5(messages)).toBe(
      [
        'system: You are helpful.',
        'user:   hi  ',
        'assistant: Searching.\nTool call (raw): {"name":"search_events","arguments":{"q":"x"},"result":{"events":[]}}',
      ].join('\n\n'),
    );
  });

  it('survives BigInt and cyclic values in traces', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const l5 = renderL5([
      { role: 'assistant', content: '', toolCalls: [{ name: 't', arguments: cyclic, result: 1n }] },
    ]);
    expect(l5).toBe(
      'assistant: \nTool call (raw): {"name":"t","arguments":{"a":1,"self":"[circular]"},"result":"1"}',
    );
  });
});

describe('renderL4 (MM-BLK-8)', () => {
  it('drops system messages, trims and labels user and assistant text', () => {
    expect(
      renderL4([
        { role: 'system', content: 'secret system prompt' },
        { role: 'user', content: '  Use pnpm?  \n' },
        { role: 'assistant', content: '\nYes.\n' },
      ]),
    ).toBe('User: Use pnpm?\n\nAssistant: Yes.');
  });

  it('renders tool JSON as Tool: + its summary and other tool text verbatim', () => {
    const json = JSON.stringify({ name: 'run', arguments: { command: 'rm -rf /tmp/x' } });
    expect(
      renderL4([
        { role: 'tool', content: json },
        { role: 'tool', content: '  build ok\n' },
      ]),
    ).toBe('Tool: Tool call: run (no result)\n\nTool:   build ok\n');
  });

  it('renders each trace as `Tool call: <name> (<summary>)` under its message', () => {
    expect(
      renderL4([
        {
          role: 'assistant',
          content: 'Checking.',
          toolCalls: [
            { name: 'a', result: { ok: true } },
            { name: ' ', result: { error: 'boom' } },
          ],
        },
        { role: 'assistant', content: '   ', toolCalls: [{ name: 'b' }] },
        { role: 'user', content: '   ' },
      ]),
    ).toBe(
      'Assistant: Checking.\nTool call: a (completed)\nTool call: unknown (failed: boom)\n\nTool call: b (no result)',
    );
  });

  it('never shows the argument keys or their values', () => {
    const l4 = renderL4([
      {
        role: 'assistant',
        content: 'Running.',
        toolCalls: [
          {
            name: 'http',
            arguments: { params: 'p-secret', input: 'i-secret', request: 'r-secret' },
            result: { arguments: ['a'], params: [1], input: [1], request: [1], rows: [1] },
          },
        ],
      },
      {
        role: 'tool',
        content: JSON.stringify({ name: 'x', arguments: { input: 'i-secret' }, result: 'done' }),
      },
    ]);
    expect(l4).toBe('Assistant: Running.\nTool call: http (rows: 1)\n\nTool: Tool call: x (done)');
    for (const word of ['arguments', 'params', 'input', 'request', 'secret']) {
      expect(l4).not.toContain(word);
    }
  });
});

describe('renderL3 (MM-BLK-9/10/11/12)', () => {
  it('acceptance: drops a standalone "Okay." and keeps "The source must remain available."', () => {
    const messages: LayerMessage[] = [
      { role: 'user', content: 'Okay.' },
      { role: 'assistant', content: 'The source must remain available.' },
    ];
    expect(renderL4(messages)).toBe('User: Okay.\n\nAssistant: The source must remain available.');
    expect(renderL3(messages)).toBe('Assistant: The source must remain available.');
  });

  it('acceptance: a privateQuery argument is absent from L3 and L4 while L5 keeps the raw JSON', () => {
    const layers = deriveLayers([
      { role: 'user', content: 'What did Ana say about the budget?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          {
            name: 'search_events',
            arguments: { privateQuery: 'ana salary 2024' },
            result: { events: [{ id: 'evt_1' }] },
          },
        ],
      },
    ]);
    for (const layer of [layers.l3, layers.l4]) {
      expect(layer).toContain('Tool call: search_events (events: 1)');
      expect(layer).not.toContain('privateQuery');
      expect(layer).not.toContain('ana salary');
    }
    expect(layers.l5).toContain(
      'Tool call (raw): {"name":"search_events","arguments":{"privateQuery":"ana salary 2024"},"result":{"events":[{"id":"evt_1"}]}}',
    );
  });

  it('acceptance: a >= 80-char paragraph pasted twice is once in L3 plus the marker, twice in L5', () => {
    const short = 'Please check this.';
    const layers = deriveLayers([
      { role: 'user', content: `${short}\n\n${LONG_PASTE}` },
      { role: 'assistant', content: 'Is Postgres running?' },
      { role: 'user', content: `${short}\n\n${LONG_PASTE}` },
    ]);
    expect(count(layers.l3, LONG_PASTE)).toBe(1);
    expect(count(layers.l3, REPEATED_PASTE_MARKER)).toBe(1);
    expect(count(layers.l3, short)).toBe(2);
    expect(count(layers.l4, LONG_PASTE)).toBe(2);
    expect(count(layers.l5, LONG_PASTE)).toBe(2);
    expect(layers.l3).toBe(
      `User: ${short}\n\n${LONG_PASTE}\n\nAssistant: Is Postgres running?\n\nUser: ${short}\n\n${REPEATED_PASTE_MARKER}`,
    );
  });

  it('applies the derived filler vectors', () => {
    expect(
      renderL3([
        { role: 'user', content: '好的！' },
        { role: 'assistant', content: '好的，我们改用 pnpm。' },
        { role: 'user', content: "Thanks! Let's use pnpm." },
      ]),
    ).toBe("Assistant: 好的，我们改用 pnpm。\n\nUser: Let's use pnpm.");
  });

  it('keeps the traces of a message that became empty', () => {
    expect(
      renderL3([{ role: 'assistant', content: 'Sure!', toolCalls: [{ name: 'lint', result: 3 }] }]),
    ).toBe('Tool call: lint (3)');
  });

  it('replaces unparsable raw tool-call text in tool messages, in L3 only', () => {
    const raw = '{"tool_calls": [{"function": {"name": "run_sql", "arguments": "{\\"q\\": \\"DROP';
    const messages: LayerMessage[] = [
      { role: 'tool', content: raw },
      { role: 'tool', content: 'truncated "arguments": {"token": "abc' },
    ];
    expect(renderL4(messages)).toBe(`Tool: ${raw}\n\nTool: truncated "arguments": {"token": "abc`);
    expect(renderL3(messages)).toBe(
      'Tool: Tool call: run_sql (raw arguments omitted)\n\nTool: Tool call: unknown (raw arguments omitted)',
    );
  });

  it('does not drop fillers from tool output or paraphrase anything else', () => {
    const messages: LayerMessage[] = [
      { role: 'tool', content: 'ok' },
      { role: 'user', content: 'Keep  this   spacing.\n\nThanks!' },
    ];
    expect(renderL3(messages)).toBe('Tool: ok\n\nUser: Keep  this   spacing.');
  });
});

describe('deriveLayers guards (MM-BLK-14)', () => {
  it('uses rendered L5 as L4 when L4 would be larger', () => {
    const messages: LayerMessage[] = [{ role: 'tool', content: '{"tool":"t","result":{}}' }];
    expect(estimateTokens(renderL4(messages))).toBeGreaterThan(estimateTokens(renderL5(messages)));
    const layers = deriveLayers(messages);
    expect(layers.l4).toBe(layers.l5);
    expect(layers.l3).toBe(layers.l5);
  });

  it('uses L4 as L3 when L3 would be larger', () => {
    const messages: LayerMessage[] = [{ role: 'tool', content: '"arguments"' }];
    expect(estimateTokens(renderL3(messages))).toBeGreaterThan(estimateTokens(renderL4(messages)));
    const layers = deriveLayers(messages);
    expect(layers.l4).toBe(renderL4(messages));
    expect(layers.l3).toBe(layers.l4);
  });

  it('reports token estimates of the returned texts', () => {
    const layers = deriveLayers([{ role: 'user', content: 'Thanks! 我们改用 pnpm 😀' }]);
    expect(layers.tokens).toEqual({
      l3: estimateTokens(layers.l3),
      l4: estimateTokens(layers.l4),
      l5: estimateTokens(layers.l5),
    });
  });

  it('keeps est(L3) <= est(L4) <= est(L5) for arbitrary blocks', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.constantFrom(
        'ok',
        'Thanks!',
        '好的！',
        LONG_PASTE,
        `${LONG_PASTE}\n\n${LONG_PASTE}`,
        '```\nconst a = 1;\n```',
        '{"tool":"t","result":{}}',
        '{"name":"x","arguments":{"input":"s"}}',
        '"arguments"',
        '  ',
      ),
    );
    const call = fc.record(
      {
        name: fc.string({ maxLength: 12 }),
        arguments: fc.jsonValue({ maxDepth: 2 }),
        result: fc.oneof(fc.jsonValue({ maxDepth: 2 }), text),
      },
      { requiredKeys: ['name'] },
    );
    const message = fc.record(
      {
        role: fc.constantFrom('user', 'assistant', 'tool', 'system'),
        content: text,
        toolCalls: fc.array(call, { maxLength: 3 }),
      },
      { requiredKeys: ['role', 'content'] },
    );
    // Tool JSON with a terse body renders longer in L4 than in L5, which exercises the guard.
    const inflating = fc.constantFrom<LayerMessage>(
      { role: 'tool', content: '{"tool":"t"}' },
      { role: 'tool', content: '{"tool":"t","result":{}}' },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(message, inflating), { maxLength: 8 }), (messages) => {
        const layers = deriveLayers(messages);
        expect(layers.tokens.l3).toBeLessThanOrEqual(layers.tokens.l4);
        expect(layers.tokens.l4).toBeLessThanOrEqual(layers.tokens.l5);
        expect(layers.tokens.l5).toBe(estimateTokens(layers.l5));
      }),
    );
  });

  it('keeps trace arguments out of L3 and L4 unless L4 fell back to L5', () => {
    const sentinel = 'SENTINEL_ARG_VALUE';
    const message = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      content: fc.string({ unit: 'grapheme', maxLength: 40 }),
      toolCalls: fc.array(
        fc.record({
          name: fc.constantFrom('search', 'run', ''),
          arguments: fc.constant({ privateQuery: sentinel, params: [sentinel] }),
          result: fc.jsonValue({ maxDepth: 2 }),
        }),
        { maxLength: 2 },
      ),
    });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 5 }), (messages) => {
        const layers = deriveLayers(messages);
        fc.pre(layers.l4 !== layers.l5);
        expect(layers.l4).not.toContain(sentinel);
        expect(layers.l3).not.toContain(sentinel);
      }),
    );
  });
});
