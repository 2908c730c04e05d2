import { z } from 'zod';
import { Count } from '@stratagate/http';
import { BOUNDS_REST } from './text-bounds.ts';

const SectionCut = z.object({
  cut: z.array(z.string()).describe('ids of the items whose text was cut to `itemChars`'),
  omitted: Count.describe('older items left out to stay within `sectionBytes`'),
});

/** How much conversation text the answer carries at most, and what it cut to stay within it. */
export const BoundsSchema = z
  .object({
    itemChars: Count.describe('code points of one block view or message at most'),
    sectionBytes: Count.describe('UTF-8 bytes of text per section (blocks, open tail) at most'),
    blocks: SectionCut,
    openTail: SectionCut,
    rest: z.string().describe('where the whole text of a cut or left-out item is read'),
  })
  .describe(
    'block views and messages longer than `itemChars` are cut, and the oldest are left out past `sectionBytes`',
  );

/** The bounds of an answer that cut nothing (the examples'). */
export const exampleBounds = {
  itemChars: 4000,
  sectionBytes: 65536,
  blocks: { cut: [], omitted: 0 },
  openTail: { cut: [], omitted: 0 },
  rest: BOUNDS_REST,
};
