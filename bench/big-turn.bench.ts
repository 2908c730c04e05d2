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
  const space = '/v1/spaces/big';
  const t0 = performance.now();
  const res = await t.request('POST', `${space}/turns`, {
    turnId: 'big-1',
    threadId: 's1',
    occurredAt: '2026-11-30T10:00:00Z',
    messages: [
      ...Array.from({ length: Math.ceil(content.length / MESSAGE_CHARS) }, (_, i) => ({
        role: 'user',
        name: 'Lee',
        content: content.slice(i * MESSAGE_CHARS, (i + 1) * MESSAGE_CHARS),
      })),
      { role: 'assistant', content: 'Noted.' },
    ],
  });
  if (res.status !== 202) throw new Error(`turn: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  const acked = performance.now();
  const closed = await t.request('POST', `${space}/threads/s1/close`);
  if (closed.status !== 200 && closed.status !== 202) throw new Error(`close: ${closed.status}`);
  await t.settle('big', undefined, 600_000);
  const settled = performance.now();
  const events = await t.request('GET', `${space}/memory-events?limit=200`);
  console.log(
    JSON.stringify({
      chars: content.length,
      ackSeconds: Math.round(acked - t0) / 1000,
      settleSeconds: Math.round(settled - acked) / 1000,
      events: (events.body.events as unknown[]).length,
    }),
  );
} finally {
  await t.stop();
}
