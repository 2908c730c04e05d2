import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataGate } from '@stratagate/client';
import { describeBackend } from '@stratagate/store/testing';
import {
  answerFromMemory,
  runConversation,
  standInModel,
  type Session,
} from '../examples/agent-loop.ts';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * What a newcomer writes with the client: examples/agent-loop.ts runs a 30-turn, three-session
 * conversation and answers two questions from memory through the evidence gate. The count of
 * HTTP calls it takes is reported in docs/benchmarks.md.
 */

const filler = (topic: string) =>
  Array.from({ length: 8 }, (_, i) => `Let us go on with ${topic}, point ${i + 1}.`);
const SESSIONS: Session[] = [
  {
    threadId: 'monday',
    messages: [
      'Our project Atlas uses npm.',
      'We switched Atlas to pnpm because installs are faster.',
      ...filler('the Atlas roadmap'),
    ],
  },
  { threadId: 'tuesday', messages: [...filler('the budget'), 'Thanks.', 'Bye for today.'] },
  { threadId: 'wednesday', messages: [...filler('hiring'), 'Good.', 'See you.'] },
];

describe(`the example agent loop on a 30-turn conversation (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('newcomer', { listen: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('remembers across sessions and adopts only what the answers used', async () => {
    const calls = new Map<string, number>();
    const sg = new StrataGate({
      baseUrl: t.node.url!,
      apiKey: t.key,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname.replace(/^\/v1\/spaces\/[^/]+/, '');
        const kind = `${request.method} ${path.replace(/\/(threads|blocks)\/[^/]+/, '/$1/…')}`;
        calls.set(kind, (calls.get(kind) ?? 0) + 1);
        return fetch(request);
      },
    });
    const model = standInModel(/pnpm/i);
    const settled = await runConversation(sg, model, 'newcomer', SESSIONS);
    expect(settled).toMatchObject({ settled: true, turnCounter: 30 });

    const first = await answerFromMemory(
      sg,
      model,
      'newcomer',
      'thursday',
      'Atlas package manager',
    );
    expect(first.answer).toMatch(/pnpm/);
    expect(first.adoption).toMatchObject({ incremented: 1, unresolvedBatchIds: [] });
    const none = await answerFromMemory(
      sg,
      standInModel(/salary/),
      'newcomer',
      'thursday',
      'salary',
    );
    expect(none.answer).toBeUndefined();
    expect(none.adoption).toMatchObject({ incremented: 0, unresolvedBatchIds: [] });

    const byKind = Object.fromEntries([...calls].sort());
    const polls = byKind['GET /status'] ?? 0;
    const total = [...calls.values()].reduce((a, b) => a + b, 0);
    console.log(`newcomer simulation: ${total} HTTP calls (${polls} status polls)`, byKind);
    expect(total - polls).toBe(30 * 2 + 3 + 2 * 3);
  });
});
