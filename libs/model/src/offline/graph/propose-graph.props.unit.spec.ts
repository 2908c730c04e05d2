import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GraphProposal,
  NODE_TYPES,
  type GraphContextEdge,
  type GraphContextNode,
  type GraphProposalInput,
} from '../../graph.schema.ts';
import { codePointLength } from '../../text.ts';
import { proposeGraphOffline } from './propose-graph.ts';
import { citedIds, graphEvent } from './test-fixtures.ts';

/** Cue words, names and punctuation in both languages, so generated text hits every rule. */
const WORDS = [
  'Project',
  'project',
  'X',
  'This',
  'We',
  'we',
  'I',
  'uses',
  'use',
  'using',
  'switched',
  'to',
  'from',
  'migrated',
  'moved',
  'replaced',
  'with',
  'npm',
  'pnpm',
  'Docker',
  'CI',
  'still',
  'has',
  'be',
  'verified',
  'pending',
  'verification',
  'review',
  'blocked',
  'is',
  'not',
  'will',
  "don't",
  'works',
  'at',
  'for',
  'Alpha',
  'Corp',
  'Inc',
  'company',
  'lives',
  'in',
  'New',
  'York',
  'Dana',
  'the',
  'our',
  'and',
  '.',
  ',',
  ';',
  '?',
  '李明',
  '在',
  'B公司',
  '公司',
  '工作',
  '我们',
  '我',
  '改用',
  '使用',
  '用',
  '住在',
  '搬到',
  '上海',
  '项目',
  '待验证',
  '还需要验证',
  '打算',
  '从',
  '迁移到',
  '，',
  '。',
  '-',
  '_',
  ' ',
  '😀',
];

const text = fc
  .array(
    fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...WORDS) },
      { weight: 1, arbitrary: fc.string() },
    ),
    {
      maxLength: 24,
    },
  )
  .map((words) => words.join(' '));
const id = fc.oneof(
  fc.constantFrom('e1', 'e2', 'e3', 'node_x', ' ', ''),
  fc.string({ maxLength: 8 }),
);
const name = fc.oneof(
  fc.constantFrom('Dana', 'X', 'npm', 'CI', '李明', 'user', 'Project X', 'alpha_corp', ''),
  fc.string({ maxLength: 12 }),
);

const event = fc.record({
  id,
  title: text,
  summary: text,
  tags: fc.array(fc.oneof(name, fc.constantFrom('x', 'project:x', '项目X')), { maxLength: 4 }),
  scope: fc.constantFrom('user' as const, 'project' as const, 'session' as const),
  participants: fc.array(name, { maxLength: 3 }),
});
const contextNode = fc.record({
  id,
  name,
  type: fc.constantFrom(...NODE_TYPES),
  aliases: fc.array(name, { maxLength: 2 }),
  currentFacts: fc.constant<GraphContextNode['currentFacts']>([]),
});
const input: fc.Arbitrary<GraphProposalInput> = fc.record({
  events: fc
    .array(event, { maxLength: 5 })
    .map((events) => events.map((e) => graphEvent(e.id, e.title, e.summary, e))),
  nodes: fc.array(contextNode, { maxLength: 4 }),
  edges: fc.constant<GraphContextEdge[]>([]),
});

describe('offline graph proposer: properties', () => {
  it('always validates, cites only input event ids, and keeps every edge on proposed nodes', () => {
    fc.assert(
      fc.property(input, (graphInput) => {
        const proposal = proposeGraphOffline(graphInput);
        expect(GraphProposal.parse(proposal)).toEqual(proposal);
        const ids = new Set(graphInput.events.map((e) => e.id));
        for (const cited of citedIds(proposal))
          expect(ids.has(cited) && cited.trim() !== '').toBe(true);
        const refs = proposal.nodes.map((n) => n.ref);
        expect(new Set(refs).size).toBe(refs.length);
        for (const e of proposal.edges)
          expect(refs).toEqual(expect.arrayContaining([e.fromRef, e.toRef]));
        for (const node of proposal.nodes) {
          expect(node.nameSourceEventIds.length).toBeGreaterThan(0);
          expect(codePointLength(node.ref)).toBeLessThanOrEqual(120);
          expect(codePointLength(node.name)).toBeLessThanOrEqual(160);
          for (const fact of node.facts) expect(fact.value).not.toMatch(/pass|done|progress/iu);
        }
      }),
      { numRuns: 300 },
    );
    // 300 batches through the English tagger: seconds on a shared two-core machine.
  }, 60_000);

  it('is deterministic', () => {
    fc.assert(
      fc.property(input, (graphInput) => {
        expect(proposeGraphOffline(graphInput)).toEqual(
          proposeGraphOffline(structuredClone(graphInput)),
        );
      }),
      { numRuns: 100 },
    );
  });
});
