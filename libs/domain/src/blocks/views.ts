/** MM-BLK-6/21: rendering one level of a ready block. */

export type BlockLevel = 0 | 1 | 2 | 3 | 4 | 5;

export interface BlockContent {
  title: string | null;
  tags: string[];
  summary: string | null;
  keyPoints: string[];
  l3: string;
  l4: string;
  l5: string;
}

/**
 * L0–L2 come from a model and may be missing; then the nearest more detailed level stands in,
 * so a view never shows less than was asked for. L2 without points falls back to L1 first, as
 * MM-BLK-6 says, because the summary is still closer to "key facts" than a transcript is.
 */
export function renderBlockLevel(block: BlockContent, level: BlockLevel): string {
  switch (level) {
    case 0:
      return renderTitle(block) ?? renderBlockLevel(block, 1);
    case 1:
      return renderSummary(block) ?? renderPoints(block) ?? block.l3;
    case 2:
      return renderPoints(block) ?? renderSummary(block) ?? block.l3;
    case 3:
      return block.l3;
    case 4:
      return block.l4;
    case 5:
      return block.l5;
    default: {
      const unreachable: never = level;
      throw new Error(`unknown block level: ${String(unreachable)}`);
    }
  }
}

function renderTitle(block: BlockContent): string | null {
  if (block.title === null || block.title.trim() === '') return null;
  const tags = block.tags.length === 0 ? 'none' : block.tags.join(', ');
  return `${block.title}\nTags: ${tags}`;
}

function renderSummary(block: BlockContent): string | null {
  return block.summary === null || block.summary.trim() === '' ? null : block.summary;
}

function renderPoints(block: BlockContent): string | null {
  return block.keyPoints.length === 0 ? null : block.keyPoints.map((p) => `- ${p}`).join('\n');
}

export function levelLabel(level: BlockLevel): string {
  return `L${level}`;
}

const LEVEL_TEXT = /^[Ll]?([0-5])$/;

/** `'L0'`…`'L5'` (either case), `'0'`…`'5'` or an integer 0…5; anything else is null. */
export function parseLevel(value: string | number): BlockLevel | null {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= 5 ? (value as BlockLevel) : null;
  }
  const digit = LEVEL_TEXT.exec(value.trim())?.[1];
  return digit === undefined ? null : (Number(digit) as BlockLevel);
}
