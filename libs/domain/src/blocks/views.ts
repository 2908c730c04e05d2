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

/** The raw layers of a block: L3–L5 are stored texts, not rendered from the model's fields. */
export type RawLayer = 'l3' | 'l4' | 'l5';

/** What rendering needs besides the raw layers (a reader may load the layers afterwards). */
export type DerivedContent = Omit<BlockContent, RawLayer>;

/**
 * L0–L2 come from a model and may be missing; then the nearest more detailed level stands in,
 * so a view never shows less than was asked for. L2 without points falls back to L1 first, as
 * MM-BLK-6 says, because the summary is still closer to "key facts" than a transcript is.
 */
export function renderBlockLevel(block: BlockContent, level: BlockLevel): string {
  const layer = STORED_LAYER[level];
  return layer ? block[layer] : (derivedView(block, level) ?? block.l3);
}

/** L3–L5 are their stored layers. */
const STORED_LAYER: Partial<Record<BlockLevel, RawLayer>> = { 3: 'l3', 4: 'l4', 5: 'l5' };

/**
 * The raw layer a level's view of this block is, or null when title, summary or key points
 * render it: a reader can load only the layer each view needs (a thread's older blocks fade to
 * L0–L2 and need none).
 */
export function rawLayerOf(block: DerivedContent, level: BlockLevel): RawLayer | null {
  return STORED_LAYER[level] ?? (derivedView(block, level) === null ? 'l3' : null);
}

/** L0–L2 from the model's fields, falling back as renderBlockLevel says; null when none exist. */
function derivedView(block: DerivedContent, level: BlockLevel): string | null {
  switch (level) {
    case 0:
      return renderTitle(block) ?? derivedView(block, 1);
    case 1:
      return renderSummary(block) ?? renderPoints(block);
    case 2:
      return renderPoints(block) ?? renderSummary(block);
    default:
      return null;
  }
}

function renderTitle(block: DerivedContent): string | null {
  if (block.title === null || block.title.trim() === '') return null;
  const tags = block.tags.length === 0 ? 'none' : block.tags.join(', ');
  return `${block.title}\nTags: ${tags}`;
}

function renderSummary(block: DerivedContent): string | null {
  return block.summary === null || block.summary.trim() === '' ? null : block.summary;
}

function renderPoints(block: DerivedContent): string | null {
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
