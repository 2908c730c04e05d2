import type { MemoryRecord } from '../records/record-types.ts';
import type { SpaceWriterState } from './space-writer.ts';

export interface EraseCommand {
  erasureId: string;
  target:
    | { scope: 'space' }
    | { scope: 'thread'; threadId: string }
    | { scope: 'memory_event'; eventId: string };
  requestedBy: string;
}

/**
 * The record of an erasure (ADR 0046), decided on the space's write-side state: its counters go
 * into the record, so folding the space without the erased records keeps them.
 */
export function decideErasure(
  state: SpaceWriterState,
  cmd: EraseCommand,
): Extract<MemoryRecord, { type: 'ContentErased' }>[] {
  const { target } = cmd;
  return [
    {
      type: 'ContentErased',
      data: {
        erasureId: cmd.erasureId,
        scope: target.scope,
        ...(target.scope === 'thread' ? { threadId: target.threadId } : {}),
        ...(target.scope === 'memory_event' ? { eventId: target.eventId } : {}),
        requestedBy: cmd.requestedBy,
        counters: {
          turnCounter: state.turnCounter,
          blockSequence: state.blockSequence,
          batchCount: state.batchCount,
        },
      },
    },
  ];
}
