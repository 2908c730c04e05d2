import type { TimelineEntry } from '../../extraction.schema.ts';
import type { ExtractionInput, SummaryMessage } from '../../model-port.ts';

/** Builders shared by the extractor specs. Texts are written for these tests. */
export function msg(
  messageId: string,
  role: SummaryMessage['role'],
  content: string,
  occurredAt: string,
  name?: string,
): SummaryMessage {
  return name === undefined
    ? { messageId, role, content, occurredAt }
    : { messageId, role, content, occurredAt, name };
}

export function block(messages: SummaryMessage[], timeline: TimelineEntry[] = []): ExtractionInput {
  return { blockId: 'blk_test', threadId: 'thread_1', messages, timeline };
}

export function entry(
  id: string,
  title: string,
  summary: string,
  eventType: string,
  extra: Partial<TimelineEntry> = {},
): TimelineEntry {
  return {
    id,
    title,
    summary,
    scope: 'project',
    criticality: 'routine',
    status: 'active',
    supersededBy: null,
    temporal: { eventType, mentionedAt: '2024-05-01T09:00:00Z' },
    ...extra,
  };
}

/** memory-model.md §15 S1, the block after "This project uses npm." (E1, on the timeline). */
export const NPM_TIMELINE: TimelineEntry[] = [
  entry('evt_e1', 'X uses npm', 'This project uses npm.', 'decision'),
  entry('evt_trip', 'Caroline went to Paris', 'Caroline: I went to Paris in April.', 'other', {
    scope: 'user',
  }),
];

export const PNPM_BLOCK = block(
  [
    msg(
      'm2',
      'user',
      'We switched to pnpm; installs are faster and it suits our multi-package layout.',
      '2024-05-06T10:00:00Z',
    ),
    msg('m3', 'user', 'CI still has to be verified after the migration.', '2024-05-06T10:01:00Z'),
    msg('m4', 'user', 'We finish the prototype next week.', '2024-05-06T10:02:00Z'),
  ],
  NPM_TIMELINE,
);

/** A multi-KB, 12-turn working block: explanations, code and lists around a few facts. */
export function workBlock(): ExtractionInput {
  const prose =
    'Exponential backoff with jitter spreads the load when many workers retry at once, and each attempt records its status so the scheduler knows whether another one can help. A rate-limited response usually carries a Retry-After header; honouring it keeps the client inside its quota. ';
  const code =
    '```ts\nexport async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  let last: unknown;\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch (e) { last = e; }\n  }\n  throw last;\n}\n```\n';
  const list =
    '- Keep the worker stateless.\n- Store the cursor in the database.\n- Emit one metric per attempt.\n';
  const messages = Array.from({ length: 12 }, (_, i) => {
    const at = `2024-05-06T10:${String(i * 2).padStart(2, '0')}:00Z`;
    const user = `Update ${i} on the billing queue. We decided to move the invoice job to a queue last week because the cron job kept timing out. I prefer idempotent retries. Could you check whether the retry policy handles rate limits? Dana and I will demo the dashboard next Tuesday. 我们下个月要把数据库迁移到新集群。`;
    const assistant = `${prose.repeat(4)}\n\n${code}\n${list}\nI ran the tests again and read src/retry.ts. The integration test failed because the queue name was wrong. ${prose.repeat(3)}`;
    return [msg(`u${i}`, 'user', user, at), msg(`a${i}`, 'assistant', assistant, at)];
  });
  return block(messages.flat());
}
