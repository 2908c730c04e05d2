import { expect } from 'vitest';
import type { TestNode } from '../harness.ts';
import { minutesAfter, type Scenario } from './scenario.ts';

/** A graph node as `GET …/graph/nodes` lists it (the fields the scenario tests read). */
export interface NodeView {
  id: string;
  name: string;
  aliases: string[];
  currentFacts: { key: string; value: string | string[] }[];
  currentEdges: { fromId: string; toId: string; relation: string }[];
}

/**
 * Session `round` of `s` into `space`: thread `session-<round+1>`, one turn a message, turn i
 * said i minutes after the session starts; then the thread is closed (its tail sealed).
 */
export async function ingestSession(
  t: TestNode,
  s: Scenario,
  round: number,
  space: string,
): Promise<void> {
  const session = s.sessions[round];
  if (!session) return;
  const threadId = `session-${round + 1}`;
  for (const [i, [speaker, text]] of session.turns.entries()) {
    const res = await t.request('POST', `/v1/spaces/${space}/turns`, {
      turnId: `${threadId}-${i + 1}`,
      threadId,
      occurredAt: minutesAfter(session.at, i),
      messages: [{ role: 'user', name: speaker, content: text }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  }
  const closed = await t.request('POST', `/v1/spaces/${space}/threads/${threadId}/close`);
  expect([200, 202]).toContain(closed.status);
}
