/**
 * `node --import tsx bench/big-turn.bench.ts [--chars N]`
 *
 * One turn of N characters (default 1.9 MB, under the 2 MiB body limit), as user messages of
 * at most 190,000 characters each (a message's limit is 200,000)
 * through the whole pipeline on in-memory PGlite (or DATABASE_URL) with the default offline
 * provider: ingest, close the session (seal), and the time until projection and every
 * derivation job (summary, extraction, graph) have settled. Prints seconds.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startTestNode } from '../test/harness.ts';
import { pastedText } from './pasted-text.ts';

const { values } = parseArgs({ options: { chars: { type: 'string', default: '1900000' } } });
const target = Number(values.chars);
const content = pastedText(target);
const MESSAGE_CHARS = 190_000;
const t = await startTestNode('big_turn');
try {
  const spaceId = 'big';
  const t0 = performance.now();
  await t.client.call('recordTurn', {
    spaceId,
    body: {
      turnId: 'big-1',
      threadId: 's1',
      occurredAt: '2026-11-30T10:00:00Z',
      messages: [
        ...Array.from({ length: Math.ceil(content.length / MESSAGE_CHARS) }, (_, i) => ({
          role: 'user' as const,
          name: 'Lee',
          content: content.slice(i * MESSAGE_CHARS, (i + 1) * MESSAGE_CHARS),
        })),
        { role: 'assistant' as const, content: 'Noted.' },
      ],
    },
  });
  const acked = performance.now();
  await t.client.call('closeThread', { spaceId, threadId: 's1' });
  await t.client.waitUntilSettled(spaceId, { timeoutMs: 600_000 });
  const settled = performance.now();
  const events = await t.client.call('listMemoryEvents', { spaceId, limit: 200 });
  console.log(
    JSON.stringify({
      chars: content.length,
      ackSeconds: Math.round(acked - t0) / 1000,
      settleSeconds: Math.round(settled - acked) / 1000,
      events: events.events.length,
    }),
  );
} finally {
  await t.stop();
}
