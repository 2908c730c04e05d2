import type { Kysely } from 'kysely';
import {
  decayedLevel,
  estimateTokens,
  levelLabel,
  rawLayerOf,
  renderBlockLevel,
  type BlockLevel,
  type DerivedContent,
  type SpaceRef,
} from '@stratagate/domain';
import type { BlockRow, ReadModelTables } from '@stratagate/store';
import { blockLayers, type BlockMeta } from './read-model/blocks.queries.ts';
import { boundSection, type BoundedSection } from './text-bounds.ts';
import { tokenCount as countTokens } from './token-count.ts';

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
  weight: number;
}

/** A ready block's decayed view (MM-BLK-17/18/21); fading follows ready blocks, never the clock. */
export function blockView(b: BlockRow, newestReadyPosition: number, lambda: number): BlockView {
  const decay = decayOf(b, newestReadyPosition, lambda);
  return renderedView(b, decay.level, decay);
}

function decayOf(b: BlockMeta, newestReadyPosition: number, lambda: number) {
  const decay = decayedLevel({
    anchorLevel: b.anchor_level ?? 5,
    anchorPosition: b.anchor_position ?? newestReadyPosition,
    newestReadyPosition,
    lambda,
  });
  return { level: decay.level as BlockLevel, age: decay.age, weight: decay.weight };
}

const derivedContent = (b: BlockMeta): DerivedContent => ({
  title: b.title,
  tags: b.tags ?? [],
  summary: b.summary,
  keyPoints: b.key_points ?? [],
});

/**
 * The decayed views of a thread's ready blocks, in order. Only the raw layer each view shows is
 * read (one statement): a thread's older blocks have faded to L0–L2 and need none of theirs.
 */
export async function decayedViews(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  blocks: readonly BlockMeta[],
  newestReadyPosition: number,
  lambda: number,
): Promise<BlockView[]> {
  const planned = blocks
    .filter((b) => b.status === 'ready')
    .map((b) => {
      const decay = decayOf(b, newestReadyPosition, lambda);
      return { b, ...decay, layer: rawLayerOf(derivedContent(b), decay.level) };
    });
  const texts = await blockLayers(
    db,
    space,
    planned.flatMap((p) => (p.layer ? [{ blockId: p.b.block_id, layer: p.layer }] : [])),
  );
  return planned.map(({ b, level, age, weight, layer }) => {
    // The layers a view does not show are never read by its rendering (rawLayerOf).
    const layers = { l3: '', l4: '', l5: '' };
    if (layer) layers[layer] = texts.get(b.block_id) ?? '';
    return renderedView({ ...b, ...layers }, level, { age, weight });
  });
}

/** A block at `level`; `decay` is where fading has it (a just-lifted block: age 0, weight 1). */
export function renderedView(
  b: BlockRow,
  level: BlockLevel,
  decay: { age: number; weight: number },
): BlockView {
  const content = renderBlockLevel({ ...derivedContent(b), l3: b.l3, l4: b.l4, l5: b.l5 }, level);
  return {
    id: b.block_id,
    threadId: b.thread_id,
    sequence: b.sequence,
    turnRange: [b.turn_from, b.turn_to],
    age: decay.age,
    weight: decay.weight,
    level,
    label: levelLabel(level),
    content,
    tokens: tokenCount(b, level, content),
    lastLiftedAt: b.last_lifted_at,
    lastLiftedBy: b.last_lifted_by,
  };
}

function tokenCount(b: BlockMeta, level: BlockLevel, content: string): number {
  if (level === 5) return b.tokens_l5;
  if (level === 4) return b.tokens_l4;
  if (level === 3) return b.tokens_l3;
  return estimateTokens(content);
}

/** Block views within the text bounds (`boundSection`), a cut view's tokens counted again. */
export function boundViews(views: readonly BlockView[]): BoundedSection<BlockView> {
  return boundSection(views, {
    id: (v) => v.id,
    text: (v) => v.content,
    withText: (v, content) => ({ ...v, content, tokens: countTokens(content) }),
  });
}
