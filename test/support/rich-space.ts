import { expect } from 'vitest';
import type { TestNode } from '@stratagate/runtime/testing';

/**
 * A space with something of every kind of record: turns in two threads sealed into blocks (by
 * size and by closing a session), summaries, memory events and graph work by the node's model, an
 * agent memory, an evidence batch assessed and adopted, a pinned and a forgotten event, a settings
 * change. Export, import and erasure tests compare what becomes of it.
 */
export async function buildRichSpace(
  t: TestNode,
  spaceId: string,
  key = t.key,
  /** Words put into a turn of each thread (erasure tests look for them afterwards). */
  plant: { atlas?: string; pottery?: string } = {},
): Promise<void> {
  const S = `/v1/spaces/${spaceId}`;
  const ok = async (method: 'POST' | 'PUT', url: string, body: unknown, status = [200, 202]) => {
    const res = await t.request(method, `${S}${url}`, body, key);
    expect(status, `${method} ${url}: ${JSON.stringify(res.body)}`).toContain(res.status);
    return res.body;
  };
  await ok('PUT', '/settings', { blockSize: 2 });
  const atlas = [
    'Our project Atlas uses npm for its packages.',
    'We switched Atlas to pnpm because installs are faster with many packages.',
    'Caroline leads the Atlas release planned for June 2023.',
    'The Atlas CI still has to be verified after the pnpm migration.',
    `We finish the Atlas prototype next week.${plant.atlas ? ` The demo password is ${plant.atlas}.` : ''}`,
  ];
  for (const [i, content] of atlas.entries()) {
    await ok('POST', '/turns', {
      turnId: `atlas-${i + 1}`,
      threadId: 'atlas',
      occurredAt: new Date(Date.UTC(2023, 4, 1 + i, 9, 30)).toISOString(),
      messages: [
        { role: 'user', name: 'Caroline', content },
        { role: 'assistant', content: `Noted: ${content}` },
      ],
    });
  }
  const pottery = [
    'Melanie started a pottery class in Berlin on Tuesdays.',
    `Melanie sold her first bowl at the Kreuzberg market.${plant.pottery ? ` Her locker code is ${plant.pottery}.` : ''}`,
    'Melanie plans a pottery workshop for her friends in July.',
  ];
  for (const [i, content] of pottery.entries()) {
    await ok('POST', '/turns', {
      turnId: `pottery-${i + 1}`,
      threadId: 'pottery',
      occurredAt: new Date(Date.UTC(2023, 5, 10 + i, 18, 0)).toISOString(),
      messages: [
        { role: 'user', name: 'Melanie', content },
        {
          role: 'assistant',
          content: 'That sounds lovely.',
          toolCalls: [{ name: 'lookup_calendar', arguments: { day: i }, result: { ok: true } }],
        },
      ],
    });
  }
  await ok('POST', '/threads/pottery/close', {});
  await t.settle(spaceId, key);

  await ok('POST', '/threads/atlas/remember', {
    content: 'Atlas deploys from the main branch every Friday.',
    category: 'fact',
  });
  const search = await ok('POST', '/threads/atlas/search/events', { query: 'Atlas pnpm' });
  const ref = search.evidenceRefs[0] as string | undefined;
  expect(ref, 'the search found an event').toBeDefined();
  await ok('POST', '/threads/atlas/assess', {
    batchId: search.batchId,
    verdict: 'sufficient',
    evidence_refs: [ref],
    fit: 'says Atlas uses pnpm',
    missing: '',
    next_strategy: 'answer',
  });
  await ok('POST', '/threads/atlas/adopt', {
    batchId: search.batchId,
    receiptId: `adopt:${search.batchId}`,
    evidence_refs: [ref],
  });
  const events = (await t.request('GET', `${S}/memory-events?status=active`, undefined, key)).body
    .events as { id: string }[];
  expect(events.length, 'the model made memory events').toBeGreaterThanOrEqual(2);
  await ok('POST', `/memory-events/${events[0]!.id}/pin`, {});
  await ok('POST', `/memory-events/${events[1]!.id}/forget`, {});
  await t.settle(spaceId, key);
}
