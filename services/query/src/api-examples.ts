/*
 * Example values shared by the OpenAPI examples of the query routes: one small conversation
 * (Caroline moves project Atlas from npm to pnpm) as the offline model derives it, so ids,
 * refs and titles agree across endpoints.
 */

export const SPACE = 'project:acme';
export const THREAD = 'session-42';
/** A later session that searches what session-42 left behind. */
export const AGENT_THREAD = 'session-43';

export const BLOCK_1 = 'blk_5be877ba2fd4424f8be85bfc62f082ae';
export const BLOCK_2 = 'blk_4bf003228ef64a36bf0bc3f9312a4ecc';
export const BLOCK_3 = 'blk_3e869e5a6f3e4987911b499c0fd1aab4';

export const MSG_PNPM = 'msg_e3263360c17f4da4bbf2b066c5fd4a99';
export const MSG_PNPM_REPLY = 'msg_83113869d469417480724775c6e751c3';
export const MSG_CI = 'msg_2a98786e1cb04c7082e990104ec62c40';
export const MSG_CI_REPLY = 'msg_f64568d9173d4564a609bb2894d8927c';

export const EVT_PNPM = 'evt_1e0bc91f462a49f3a33520f217976c68';
export const EVT_CI = 'evt_51258643dd52499bad925bf60d4251d5';

export const NODE_ATLAS = 'node_57c1392bc0cc4ae2a2524436fa733b2b';
export const NODE_CAROLINE = 'node_b43104187eca48af9874c1b96df2a940';
export const NODE_CI = 'node_8b4103a4f7394ab6bd154e792263e22b';
export const EDGE_CAROLINE_ATLAS = 'edge_79c454b625764c63abf36efeecc2f45f';

export const TITLE_PNPM = 'Caroline: We switched Project Atlas from npm to pnpm';
export const TITLE_CI = 'Caroline: The Atlas CI still has to be verified after the pnpm migration';

export const L5_BLOCK_1 =
  'user: We switched Project Atlas from npm to pnpm last week.\n\nassistant: Noted: Project Atlas now uses pnpm.\n\nuser: The Atlas CI still has to be verified after the pnpm migration.\n\nassistant: I will remind you to verify the CI.';

export const exampleBlockView = {
  id: BLOCK_1,
  threadId: THREAD,
  sequence: 1,
  turnRange: [1, 2] as [number, number],
  age: 1,
  weight: 0.7408182206817179,
  level: 5 as const,
  label: 'L5',
  content: L5_BLOCK_1,
  tokens: 57,
  lastLiftedAt: null,
  lastLiftedBy: null,
};

export const exampleTemporal = {
  basis: 'relative',
  status: 'occurred',
  threadId: THREAD,
  eventType: 'other',
  precision: 'range',
  happenedStart: '2023-05-01',
  happenedEnd: '2023-05-07',
  mentionedAt: '2023-05-08T13:51:00+08:00',
  originalText: 'last week',
  participants: ['Caroline'],
  relatedEventIds: [],
  supersedesEventIds: [],
  conflictsWithEventIds: [],
};

export const exampleEventCard = {
  id: EVT_PNPM,
  title: TITLE_PNPM,
  summary: 'Caroline: We switched Project Atlas from npm to pnpm last week.',
  tags: ['Caroline', 'project', 'atlas', 'npm', 'pnpm'],
  quotes: ['We switched Project Atlas from npm to pnpm last week.'],
  scope: 'project' as const,
  criticality: 'routine' as const,
  eventType: 'other',
  pool: 'extracted' as const,
  status: 'active' as const,
  supersededBy: null,
  sourceBlockId: BLOCK_1,
  sourceMessageIds: [MSG_PNPM],
  threadId: THREAD,
  temporal: exampleTemporal,
  conflictsWith: [],
  catalogHints: [],
  formedTurn: 2,
  createdAt: '2023-05-08T06:02:11.268Z',
  updatedAt: '2023-05-08T06:02:11.268Z',
  weight: {
    mentionCount: 1,
    lastAdoptedTurn: 2,
    lastRetrievedAt: null,
    pinned: false,
    forcedCap: null,
    value: 0.6376281516217733,
    meaning: 'ordering only; not a probability of truth',
  },
};

export const exampleSourceMessage = {
  messageId: MSG_PNPM,
  role: 'user' as const,
  name: 'Caroline',
  content: 'We switched Project Atlas from npm to pnpm last week.',
  occurredAt: '2023-05-08T13:51:00+08:00',
  threadId: THREAD,
  threadTurn: 1,
};

export const exampleTimeline = [
  { eventId: EVT_PNPM, title: TITLE_PNPM, sourceTime: '2023-05-01' },
  { eventId: EVT_CI, title: TITLE_CI, sourceTime: '2023-05-08T13:52:00+08:00' },
];
