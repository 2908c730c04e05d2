import { z } from 'zod';
import { Count, responseSchema } from '@stratagate/http';

export const ErasureReply = responseSchema(
  z.object({
    erasureId: z.string().describe('names this erasure in the log and in the audit'),
    scope: z.enum(['space', 'thread', 'memory_event']),
    spaceId: z.string(),
    threadId: z.string().nullable().describe('the erased thread (scope `thread`)'),
    eventId: z.string().nullable().describe('the erased memory event (scope `memory_event`)'),
    requestedBy: z.string().describe('the API key that asked (its id), or `cli`'),
    position: Count.describe('log position of the erasure, recorded without the content'),
    spaceVersion: Count.describe("the space's version at the erasure"),
    keysErased: Count.describe('data keys deleted: what they sealed can no longer be read'),
  }),
  'Erased for good: the content cannot be read from the log, the read models or the search index any more, and a rebuild does not bring it back. The erasure itself is recorded, without the content.',
  {
    erasureId: 'erase_5b0e1f6a2c3d4e5f60718293a4b5c6d7',
    scope: 'thread',
    spaceId: 'project:acme',
    threadId: 'session-42',
    eventId: null,
    requestedBy: 'k1a2b3c4d5e6',
    position: 1812,
    spaceVersion: 240,
    keysErased: 7,
  },
);
export type ErasureReply = z.infer<typeof ErasureReply>;
