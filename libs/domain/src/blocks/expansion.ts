import { parseLevel, type BlockLevel } from './views.ts';
import type { RecordOf } from '../records/record-types.ts';

/**
 * MM-BLK-20: how an expand request's target is read. Unknown input lifts one level instead of
 * failing, because agents phrase targets loosely; only an explicit raw/L5/5 reaches L5 from
 * below L4. Non-finite numbers count as "anything else" so NaN or Infinity cannot jump to L5.
 */
export function resolveExpandTarget(target: unknown, currentLevel: number): BlockLevel {
  if (!Number.isFinite(currentLevel)) {
    throw new Error(`current level must be a finite number, got ${String(currentLevel)}`);
  }
  const next = clampLevel(Math.round(currentLevel) + 1);
  if (target === undefined || target === null) return next;
  if (typeof target === 'number') {
    return Number.isFinite(target) ? clampLevel(Math.round(target)) : next;
  }
  if (typeof target !== 'string') return next;
  const text = target.trim().toLowerCase();
  if (text === 'raw') return 5;
  if (text === 'next' || text === '+1') return next;
  return parseLevel(text) ?? next;
}

function clampLevel(value: number): BlockLevel {
  return Math.min(5, Math.max(0, value)) as BlockLevel;
}

export interface ExpandBlockCommand {
  target: string | number | null;
  source: 'agent' | 'user';
}

/**
 * MM-BLK-20: the record of lifting a ready block from its decayed level to the target the
 * request names (read by `resolveExpandTarget`); its fading restarts from there.
 */
export function decideBlockExpansion(
  block: { id: string; threadId: string; currentLevel: BlockLevel },
  cmd: ExpandBlockCommand,
): [RecordOf<'BlockExpanded'>] {
  return [
    {
      type: 'BlockExpanded',
      data: {
        blockId: block.id,
        threadId: block.threadId,
        target: cmd.target,
        fromLevel: block.currentLevel,
        toLevel: resolveExpandTarget(cmd.target, block.currentLevel),
        source: cmd.source,
      },
    },
  ];
}
