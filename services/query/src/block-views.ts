import {
  decayedLevel,
  estimateTokens,
  levelLabel,
  renderBlockLevel,
  type BlockLevel,
} from '@stratagate/domain';
import type { BlockRow } from '@stratagate/store';

export interface BlockView {
  id: string;
  threadId: string;
  sequence: number;
  turnRange: [number, number];
  age: number;
  level: BlockLevel;
  label: string;
  content: string;
  tokens: number;
  lastLiftedAt: string | null;
  lastLiftedBy: string | null;
}

/** A ready block's decayed view (MM-BLK-17/18/21); fading follows ready blocks, never the clock. */
export function blockView(b: BlockRow, newestReadyPosition: number, lambda: number): BlockView {
  const decay = decayedLevel({
    anchorLevel: b.anchor_level ?? 5,
    anchorPosition: b.anchor_position ?? newestReadyPosition,
    newestReadyPosition,
    lambda,
  });
  const level = decay.level as BlockLevel;
  return renderedView(b, level, decay.age);
}

export function renderedView(b: BlockRow, level: BlockLevel, age: number): BlockView {
  const content = renderBlockLevel(
    {
      title: b.title,
      tags: b.tags ?? [],
      summary: b.summary,
      keyPoints: b.key_points ?? [],
      l3: b.l3,
      l4: b.l4,
      l5: b.l5,
    },
    level,
  );
  return {
    id: b.block_id,
    threadId: b.thread_id,
    sequence: b.sequence,
    turnRange: [b.turn_from, b.turn_to],
    age,
    level,
    label: levelLabel(level),
    content,
    tokens: tokenCount(b, level, content),
    lastLiftedAt: b.last_lifted_at,
    lastLiftedBy: b.last_lifted_by,
  };
}

function tokenCount(b: BlockRow, level: BlockLevel, content: string): number {
  if (level === 5) return b.tokens_l5;
  if (level === 4) return b.tokens_l4;
  if (level === 3) return b.tokens_l3;
  return estimateTokens(content);
}
