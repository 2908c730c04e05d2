import { describe, expect, it } from 'vitest';
import { graphSourceEventsOf } from '../graph-source-events.ts';
import type { TimelineEntry } from '../extraction.schema.ts';
import type { SummaryMessage } from '../model-port.ts';
import { CHINESE_SCENARIOS } from '../../../../test/scenarios/chinese.scenarios.ts';
import { ENGLISH_SCENARIOS } from '../../../../test/scenarios/english.scenarios.ts';
import { minutesAfter } from '../../../../test/scenarios/scenario.ts';
import { createOfflineProvider } from './offline-provider.ts';
import { CHINESE_BLOCK, ENGLISH_BLOCK, FILLER_BLOCK } from './test-blocks.ts';

/*
 * Everything the offline provider writes for the scenario suite's conversations and the test
 * blocks — each block's summary, extracted events (with relations to the events before it) and
 * graph proposal — pinned to a file. A change meant to make the provider faster must leave it
 * unchanged; a change of behaviour updates it on purpose (`vitest -u`) and shows in review.
 */

const BLOCK_TURNS = 4;
const TIMELINE_MAX = 12;

interface Block {
  blockId: string;
  messages: SummaryMessage[];
}

function scenarioBlocks(): { name: string; blocks: Block[] }[] {
  return [...ENGLISH_SCENARIOS, ...CHINESE_SCENARIOS].map((s) => ({
    name: s.name,
    blocks: s.sessions.flatMap((session, k) => {
      const messages = session.turns.map(([speaker, text], i): SummaryMessage => ({
        messageId: `s${k + 1}_m${i + 1}`,
        role: 'user',
        name: speaker,
        content: text,
        occurredAt: minutesAfter(session.at, i),
      }));
      const blocks: Block[] = [];
      for (let i = 0; i < messages.length; i += BLOCK_TURNS) {
        blocks.push({
          blockId: `s${k + 1}_b${i / BLOCK_TURNS + 1}`,
          messages: messages.slice(i, i + BLOCK_TURNS),
        });
      }
      return blocks;
    }),
  }));
}

/** One conversation's blocks in order, each extraction seeing the events recorded before it. */
async function run(blocks: readonly Block[]): Promise<unknown[]> {
  const model = createOfflineProvider();
  const timeline: TimelineEntry[] = [];
  const out: unknown[] = [];
  let previous: Block | undefined;
  for (const block of blocks) {
    const input = { blockId: block.blockId, threadId: 't', messages: block.messages };
    const summary = await model.summarizeBlock(input);
    const last = previous?.messages.at(-1);
    const extracted = await model.extractMemoryEvents!({
      ...input,
      previous:
        previous && last
          ? {
              blockId: previous.blockId,
              keyPoints: [],
              lastMessage: {
                role: 'user',
                ...(last.name ? { name: last.name } : {}),
                content: last.content,
              },
            }
          : null,
      timeline: timeline.slice(-TIMELINE_MAX),
    });
    const ids = extracted.output.events.map((_, i) => `${block.blockId}_e${i + 1}`);
    for (const [i, e] of extracted.output.events.entries()) {
      for (const old of e.relations.supersedesEventIds) {
        const entry = timeline.find((t) => t.id === old);
        if (entry) Object.assign(entry, { status: 'superseded', supersededBy: ids[i] });
      }
      timeline.push({
        id: ids[i] as string,
        title: e.title,
        summary: e.summary,
        scope: e.scope,
        criticality: e.criticality,
        status: 'active',
        supersededBy: null,
        temporal: e.temporal,
      });
    }
    const events = graphSourceEventsOf(extracted.output.events, ids);
    const graph = await model.proposeGraph!({ events, nodes: [], edges: [] });
    out.push({
      blockId: block.blockId,
      summary: summary.output,
      events: extracted.output.events,
      graph: graph.output,
    });
    previous = block;
  }
  return out;
}

describe('offline provider output (golden)', () => {
  it('is unchanged on the scenario conversations and the test blocks', async () => {
    const outputs: Record<string, unknown[]> = {};
    for (const { name, blocks } of scenarioBlocks()) outputs[name] = await run(blocks);
    outputs['test-blocks'] = await run([ENGLISH_BLOCK, CHINESE_BLOCK, FILLER_BLOCK]);
    await expect(`${JSON.stringify(outputs, null, 1)}\n`).toMatchFileSnapshot(
      './__snapshots__/offline-provider.golden.json',
    );
    // About 50 blocks through the tagger: seconds on a busy machine, not milliseconds.
  }, 60_000);
});
