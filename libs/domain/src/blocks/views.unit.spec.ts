import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  levelLabel,
  parseLevel,
  rawLayerOf,
  renderBlockLevel,
  type BlockContent,
  type BlockLevel,
} from './views.ts';

const block: BlockContent = {
  title: 'Switch to pnpm',
  tags: ['tooling', 'build'],
  summary: 'The team moved the repo to pnpm.',
  keyPoints: ['Use pnpm 9', 'CI caches the store'],
  l3: 'User: use pnpm',
  l4: 'User: Thanks! use pnpm',
  l5: 'user: Thanks! use pnpm',
};

describe('renderBlockLevel (MM-BLK-6)', () => {
  it('renders each level', () => {
    expect(renderBlockLevel(block, 0)).toBe('Switch to pnpm\nTags: tooling, build');
    expect(renderBlockLevel(block, 1)).toBe('The team moved the repo to pnpm.');
    expect(renderBlockLevel(block, 2)).toBe('- Use pnpm 9\n- CI caches the store');
    expect(renderBlockLevel(block, 3)).toBe(block.l3);
    expect(renderBlockLevel(block, 4)).toBe(block.l4);
    expect(renderBlockLevel(block, 5)).toBe(block.l5);
  });

  it('writes "Tags: none" without tags', () => {
    expect(renderBlockLevel({ ...block, tags: [] }, 0)).toBe('Switch to pnpm\nTags: none');
  });

  it('falls back from L2 to L1 without key points', () => {
    expect(renderBlockLevel({ ...block, keyPoints: [] }, 2)).toBe(block.summary);
  });

  it('falls back to the nearest more detailed level when model layers are missing', () => {
    const bare: BlockContent = { ...block, title: null, summary: null, keyPoints: [] };
    expect(renderBlockLevel(bare, 0)).toBe(block.l3);
    expect(renderBlockLevel(bare, 1)).toBe(block.l3);
    expect(renderBlockLevel(bare, 2)).toBe(block.l3);
    expect(renderBlockLevel({ ...block, title: null }, 0)).toBe(block.summary);
    expect(renderBlockLevel({ ...block, summary: null }, 1)).toBe(
      '- Use pnpm 9\n- CI caches the store',
    );
  });
});

describe('levelLabel / parseLevel', () => {
  it('labels L0..L5', () => {
    expect(([0, 1, 2, 3, 4, 5] as const).map(levelLabel)).toEqual([
      'L0',
      'L1',
      'L2',
      'L3',
      'L4',
      'L5',
    ]);
  });

  it.each([
    ['L0', 0],
    ['L5', 5],
    ['l3', 3],
    ['2', 2],
    [4, 4],
    [0, 0],
  ])('parses %j as %i', (value, want) => {
    expect(parseLevel(value)).toBe(want);
  });

  it.each([['L6'], ['6'], [6], [-1], [2.5], ['L'], [''], ['two'], ['L-1'], [Number.NaN]])(
    'rejects %j',
    (value) => {
      expect(parseLevel(value)).toBeNull();
    },
  );
});

describe('rawLayerOf', () => {
  const optionalText = fc.option(fc.constantFrom('', '  ', 'A title', 'Some summary.'), {
    nil: null,
  });
  const content = fc.record({
    title: optionalText,
    tags: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
    summary: optionalText,
    keyPoints: fc.array(fc.constantFrom('p', 'q'), { maxLength: 2 }),
    l3: fc.string({ maxLength: 5 }),
    l4: fc.string({ maxLength: 5 }),
    l5: fc.string({ maxLength: 5 }),
  });
  const level = fc.constantFrom<BlockLevel>(0, 1, 2, 3, 4, 5);

  it('names the layer a view is, and null only when the view never reads a layer', () => {
    fc.assert(
      fc.property(content, level, (block, lvl) => {
        const layer = rawLayerOf(block, lvl);
        const view = renderBlockLevel(block, lvl);
        if (layer !== null) expect(view).toBe(block[layer]);
        else {
          const otherLayers = {
            ...block,
            l3: `${block.l3}x`,
            l4: `${block.l4}y`,
            l5: `${block.l5}z`,
          };
          expect(renderBlockLevel(otherLayers, lvl)).toBe(view);
        }
      }),
    );
  });

  it('L3–L5 are their layers; L0–L2 need L3 only when the model gave nothing to show', () => {
    expect([3, 4, 5].map((l) => rawLayerOf(block, l as BlockLevel))).toEqual(['l3', 'l4', 'l5']);
    expect([0, 1, 2].map((l) => rawLayerOf(block, l as BlockLevel))).toEqual([null, null, null]);
    const bare = { ...block, title: null, summary: ' ', keyPoints: [] };
    expect([0, 1, 2].map((l) => rawLayerOf(bare, l as BlockLevel))).toEqual(['l3', 'l3', 'l3']);
  });
});
