import type { z } from 'zod';
import { AgentMemoryEvent, type DataOf, type RecordOf } from '../records/record-types.ts';
import type { AmbiguousResolution, RememberGate } from '../retrieval/remember-gate.ts';
import type { RememberCategory } from './remember.ts';

type Recorded = DataOf<'AgentMemoryRecorded'>;

/** Where the remembered statement's source messages come from (MM-REM-5). */
export interface RememberProvenance {
  kind: Recorded['provenance'];
  blockId: string | null;
  messageIds: string[];
}

export interface RememberCommand {
  /** The client's request id, or one the caller made up for this call. */
  requestId: string;
  threadId: string;
  content: string;
  category: RememberCategory | null;
  /** What the containment gate found (MM-REM-3). */
  gate: RememberGate;
  /** How an ambiguous gate was resolved (MM-REM-4); null unless the gate was ambiguous. */
  resolution: AmbiguousResolution | null;
  /** The model decider's answer as recorded, or null when none was asked. */
  decider: Recorded['decider'];
  provenance: RememberProvenance;
  /** The event to write if the decision writes one (its relations are set here). */
  event: z.input<typeof AgentMemoryEvent>;
}

/**
 * MM-REM-3..5: the one record a remember appends, carrying the decision itself (reinforce, add,
 * mark a conflict, merge, supersede or ignore), so replay never runs the gate or the model again.
 * `state.turnCounter` is the space's turn now: the anchor of a reinforced event (MM-WGT-3).
 */
export function decideRemember(
  state: { turnCounter: number },
  cmd: RememberCommand,
): [RecordOf<'AgentMemoryRecorded'>] {
  return [{ type: 'AgentMemoryRecorded', data: rememberRecord(state.turnCounter, cmd) }];
}

function rememberRecord(turn: number, cmd: RememberCommand): Recorded {
  const { gate, resolution } = cmd;
  const base = {
    requestId: cmd.requestId,
    threadId: cmd.threadId,
    content: cmd.content,
    category: cmd.category,
    turn,
    matchedEventIds: gate.outcome === 'AMBIGUOUS' ? gate.hits.map((h) => h.id) : [],
    provenance: cmd.provenance.kind,
    decider: cmd.decider,
  };
  const written = (
    outcome: Recorded['outcome'],
    gateName: string,
    relations: { conflicts?: string[]; supersedes?: string[] },
  ): Recorded => {
    const conflicts = relations.conflicts ?? [];
    const supersedes = relations.supersedes ?? [];
    const event = AgentMemoryEvent.parse({
      ...cmd.event,
      formedTurn: turn,
      temporal: {
        ...cmd.event.temporal,
        conflictsWithEventIds: conflicts,
        supersedesEventIds: supersedes,
      },
    });
    return {
      ...base,
      outcome,
      gate: gateName,
      event,
      reinforcedEventId: null,
      containment: null,
      conflictsWithEventIds: conflicts,
      supersededEventIds: supersedes,
    };
  };
  if (gate.outcome === 'REINFORCED') {
    return {
      ...base,
      outcome: 'REINFORCED',
      gate: gate.exact ? 'exact-duplicate' : gate.agreement ? 'agreement' : 'containment-duplicate',
      event: null,
      reinforcedEventId: gate.eventId,
      containment: gate.containment,
      conflictsWithEventIds: [],
      supersededEventIds: [],
      matchedEventIds: [],
    };
  }
  if (gate.outcome === 'ADDED') return written('ADDED', gate.gate, {});
  if (!resolution) throw new Error('an ambiguous remember needs a resolution');
  switch (resolution.outcome) {
    case 'IGNORED':
      return {
        ...base,
        outcome: 'IGNORED',
        gate: 'decider',
        event: null,
        reinforcedEventId: null,
        containment: null,
        conflictsWithEventIds: [],
        supersededEventIds: [],
      };
    case 'APPLIED':
      return written(resolution.action === 'MERGE' ? 'MERGED' : 'SUPERSEDED', 'decider', {
        supersedes: resolution.targetIds,
      });
    case 'CONFLICT_MARKED': {
      const record = written('CONFLICT_MARKED', resolution.reason, {
        conflicts: resolution.conflictsWithEventIds,
      });
      if (record.decider && resolution.downgradedFrom) {
        record.decider = { ...record.decider, downgradedFrom: resolution.downgradedFrom };
      }
      return record;
    }
    default: {
      const never: never = resolution;
      return never;
    }
  }
}
