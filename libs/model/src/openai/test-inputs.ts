import type { BlockSummaryInput, ExtractionInput, SummaryMessage } from '../model-port.ts';

/** Inputs and valid answers shared by the OpenAI-client specs: scenario S1 (npm → pnpm). */
const messages: SummaryMessage[] = [
  {
    messageId: 'msg_1',
    role: 'user',
    name: 'Dana',
    content:
      'We switched project X to pnpm; installs are faster and it suits our multi-package layout.',
    occurredAt: '2024-05-06T09:00:00Z',
  },
  {
    messageId: 'msg_2',
    role: 'assistant',
    content: 'Noted. CI still has to be verified after the migration.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' }, result: { ok: true } }],
    occurredAt: '2024-05-06T09:00:05Z',
  },
  {
    messageId: 'msg_3',
    role: 'user',
    name: 'Dana',
    content: 'We finish the prototype next week.',
    occurredAt: '2024-05-06T09:01:00Z',
  },
];

export const SUMMARY_INPUT: BlockSummaryInput = {
  blockId: 'blk_1',
  threadId: 'thread_1',
  messages,
  previousSummary: 'Project X uses npm for its monorepo.',
};

export const EXTRACTION_INPUT: ExtractionInput = {
  blockId: 'blk_1',
  threadId: 'thread_1',
  messages,
  previous: { blockId: 'blk_0', keyPoints: ['Project X uses npm.'] },
  next: null,
  timeline: [
    {
      id: 'evt_npm',
      title: 'Project X uses npm',
      summary: 'Project X uses npm as its package manager.',
      scope: 'project',
      criticality: 'routine',
      status: 'active',
      supersededBy: null,
      temporal: { mentionedAt: '2024-05-01T10:00:00Z', status: 'occurred' },
    },
  ],
};

export const VALID_SUMMARY = {
  title: 'Project X moves from npm to pnpm',
  tags: ['pnpm', 'CI', 'prototype'],
  summary: 'Dana switched project X to pnpm; CI verification and the prototype are still ahead.',
  keyPoints: [
    'Project X switched from npm to pnpm for faster installs.',
    'CI still has to be verified after the migration.',
    'The prototype is planned to be finished next week.',
  ],
  shouldExtract: true,
};

export const VALID_EXTRACTION = {
  events: [
    {
      title: 'Project X switched from npm to pnpm',
      summary: 'Project X replaced npm with pnpm because installs are faster.',
      quotes: ['We switched project X to pnpm'],
      sourceMessageIds: ['msg_1'],
      scope: 'project',
      temporal: {
        mentionedAt: '2024-05-06T09:00:00Z',
        precision: 'unknown',
        basis: 'unknown',
        status: 'occurred',
        eventType: 'change',
      },
      relations: {
        supersedesEventIds: ['evt_npm'],
        conflictsWithEventIds: [],
        relatedEventIds: [],
      },
    },
    {
      title: 'Prototype of project X due next week',
      summary: 'Dana plans to finish the prototype the week after 6 May 2024.',
      sourceMessageIds: ['msg_3'],
      scope: 'project',
      temporal: {
        mentionedAt: '2024-05-06T09:01:00Z',
        happenedStart: '2024-05-13',
        happenedEnd: '2024-05-19',
        originalText: 'next week',
        precision: 'range',
        basis: 'relative',
        status: 'planned',
        eventType: 'plan',
      },
    },
  ],
};
