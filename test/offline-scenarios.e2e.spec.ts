import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { CHINESE_SCENARIOS } from './scenarios/chinese.scenarios.ts';
import { ENGLISH_SCENARIOS } from './scenarios/english.scenarios.ts';
import { ingestSession, type NodeView } from './scenarios/through-the-api.ts';
import type { EventExpectation, Scenario } from './scenarios/scenario.ts';

/*
 * The offline extractor's scenario suite (issue 37): short conversations in English and
 * simplified Chinese, several sessions each, through the real pipeline with the default offline
 * provider (in its worker thread): ingest → seal → consolidate → project → query. One node
 * serves every scenario, each in its own space; sessions are ingested round by round (session
 * k of every scenario, then all settle), so a later session's extraction sees the earlier
 * events on its timeline, as it would when sessions are days apart.
 */

const SCENARIOS = [...ENGLISH_SCENARIOS, ...CHINESE_SCENARIOS];
const BLOCK_SIZE = 4;

interface EventCard {
  id: string;
  title: string;
  summary: string;
  quotes: string[];
  status: string;
  supersededBy: string | null;
  criticality: string;
  temporal: Record<string, unknown> & {
    participants: string[];
    eventType: string;
    sameEventId?: string;
    conflictsWithEventIds?: string[];
  };
}

/** An event summary ends with the message it replies to; that is not what the event says. */
const REPLY_CONTEXT = / \(in reply to [\s\S]*\)$/u;

const spaceOf = (s: Scenario) => `sc-${s.name}`;

describe(`offline extractor scenarios (${SCENARIOS.length} conversations) (${describeBackend()})`, () => {
  let t: TestNode;
  const events = new Map<string, EventCard[]>();
  const nodes = new Map<string, NodeView[]>();

  beforeAll(async () => {
    t = await startTestNode('offline_scenarios');
    for (const s of SCENARIOS) {
      const res = await t.request('PUT', `/v1/spaces/${spaceOf(s)}/settings`, {
        blockSize: BLOCK_SIZE,
      });
      expect(res.status).toBe(200);
    }
    const rounds = Math.max(...SCENARIOS.map((s) => s.sessions.length));
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all(SCENARIOS.map((s) => ingestSession(t, s, round, spaceOf(s))));
      for (const s of SCENARIOS) await t.settle(spaceOf(s), undefined, 120_000);
    }
    for (const s of SCENARIOS) {
      const list = await t.request('GET', `/v1/spaces/${spaceOf(s)}/memory-events?limit=200`);
      events.set(s.name, list.body.events as EventCard[]);
      const graph = await t.request('GET', `/v1/spaces/${spaceOf(s)}/graph/nodes?limit=100`);
      nodes.set(s.name, graph.body.nodes as NodeView[]);
    }
  }, 300_000);

  afterAll(async () => {
    await t?.stop();
  });

  describe.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const all = () => events.get(scenario.name) ?? [];
    // Title and quotes: the summary also carries the message replied to.
    const find = (pattern: RegExp) => {
      const found = all().find((e) => pattern.test(`${e.title}\n${e.quotes.join('\n')}`));
      if (!found) {
        throw new Error(
          `no event matches ${pattern}; events: ${JSON.stringify(all().map((e) => e.title))}`,
        );
      }
      return found;
    };

    if ((scenario.expect.events ?? []).length > 0)
      it('yields the expected events', () => {
        for (const want of scenario.expect.events ?? []) expectEvent(find(want.match), want);
      });

    if ((scenario.expect.supersedes ?? []).length > 0)
      it('supersedes what changed', () => {
        for (const { newer, older } of scenario.expect.supersedes ?? []) {
          const [n, o] = [find(newer), find(older)];
          expect({ older: o.title, status: o.status, by: o.supersededBy }).toEqual({
            older: o.title,
            status: 'superseded',
            by: n.id,
          });
        }
      });

    if ((scenario.expect.relations ?? []).length > 0)
      it('relates agreement and conflict', () => {
        for (const { newer, older, kind } of scenario.expect.relations ?? []) {
          const [n, o] = [find(newer), find(older)];
          if (kind === 'same') expect(n.temporal.sameEventId).toBe(o.id);
          else expect(n.temporal.conflictsWithEventIds).toContain(o.id);
          expect(o.status).toBe('active');
        }
      });

    if ((scenario.expect.facts ?? []).length + (scenario.expect.edges ?? []).length > 0)
      it('builds the graph facts and edges', () => {
        const graph = nodes.get(scenario.name) ?? [];
        const named = (name: string) => {
          const node = graph.find((n) => n.name === name || n.aliases.includes(name));
          if (!node) {
            throw new Error(`no node ${name}; nodes: ${graph.map((n) => n.name).join(', ')}`);
          }
          return node;
        };
        for (const { node, key, value } of scenario.expect.facts ?? []) {
          const facts = named(node).currentFacts.filter((f) => f.key === key);
          expect(
            facts.map((f) => String(f.value)),
            `${node}.${key}`,
          ).toEqual([expect.stringMatching(value)]);
        }
        for (const { from, relation, to } of scenario.expect.edges ?? []) {
          const source = named(from);
          const target = named(to);
          expect(source.currentEdges.map((e) => `${e.relation}->${e.toId}`)).toContain(
            `${relation}->${target.id}`,
          );
        }
      });

    // Recall in a new session: an active event or a node's current state gives the answer,
    // and the outdated answer is in no active event and no current state (a superseded card
    // may still be shown, marked superseded).
    if ((scenario.expect.answers ?? []).length > 0)
      it('answers from recall', async () => {
        for (const { question, expect: want, not } of scenario.expect.answers ?? []) {
          const res = await t.request(
            'POST',
            `/v1/spaces/${spaceOf(scenario)}/threads/ask/recall`,
            {
              message: question,
            },
          );
          expect(res.status).toBe(200);
          const memory = res.body.activatedMemory as {
            events: EventCard[];
            graphNodes: { name: string; currentState: string }[];
          };
          const current = [
            ...memory.events
              .filter((e) => e.status === 'active')
              .map((e) => `${e.title}\n${e.summary.replace(REPLY_CONTEXT, '')}`),
            ...memory.graphNodes
              .filter((n) => n.currentState !== '')
              .map((n) => `${n.name}\n${n.currentState}`),
          ];
          const seen = `${question} → ${JSON.stringify(current)}`;
          expect(
            current.some((text) => want.test(text)),
            seen,
          ).toBe(true);
          if (not)
            expect(
              current.some((text) => not.test(text)),
              seen,
            ).toBe(false);
        }
      });
  });

  it('has at least 20 conversations, in both languages, most with several sessions', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(20);
    expect(CHINESE_SCENARIOS.length).toBeGreaterThan(0);
    expect(SCENARIOS.filter((s) => s.sessions.length > 1).length).toBeGreaterThanOrEqual(10);
  });
});

function expectEvent(event: EventCard, want: EventExpectation): void {
  const { match: _match, criticality, participants, ...temporal } = want;
  if (criticality) expect(event.criticality, event.title).toBe(criticality);
  if (participants) expect(event.temporal.participants, event.title).toEqual(participants);
  const seen = Object.fromEntries(Object.keys(temporal).map((k) => [k, event.temporal[k]]));
  expect(seen, event.title).toEqual(temporal);
}
