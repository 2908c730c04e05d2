import { z } from 'zod';
import { collapseWhitespace, cutCodePoints } from './text.ts';

/** Limits from MM-BLK-7. Over-long values are cut (MM-GEN-4 "cut"), never a reason to fail a job. */
export const TITLE_MAX = 60;
export const TAGS_MAX = 5;
export const TAG_MAX_CHARS = 40;
export const KEY_POINTS_MAX = 8;

const trimmed = (text: string): string => text.trim();

function normaliseTitle(title: string): string {
  return cutCodePoints(collapseWhitespace(title), TITLE_MAX).trimEnd();
}

/** Trim, drop blanks, drop case-insensitive duplicates, keep the first five. */
function normaliseTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = cutCodePoints(collapseWhitespace(raw), TAG_MAX_CHARS).trimEnd();
    const key = tag.toLowerCase();
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out.slice(0, TAGS_MAX);
}

function normalisePoints(points: string[]): string[] {
  const unique = [...new Set(points.map(trimmed).filter((p) => p !== ''))];
  return unique.slice(0, KEY_POINTS_MAX);
}

/**
 * L0–L2 as recorded in `BlockSummarized`. Only what MM-BLK-7 names fails validation (blank
 * title or summary, non-array tags or points, non-boolean flag, plus non-string items); counts
 * and lengths are normalised instead, because a failed summary keeps a block pending and a
 * model that returns six tags has still done its job. Empty key points fall back to the summary
 * (the L2 → L1 fallback of MM-BLK-6). `.overwrite` keeps this a plain `ZodObject`, so it can
 * still be turned into a JSON schema for a model's response format.
 */
export const BlockSummaryOutput = z
  .object({
    title: z.string().overwrite(normaliseTitle).min(1, 'title is blank'),
    tags: z.array(z.string()).overwrite(normaliseTags),
    summary: z.string().overwrite(trimmed).min(1, 'summary is blank'),
    keyPoints: z.array(z.string()).overwrite(normalisePoints),
    shouldExtract: z.boolean(),
  })
  .overwrite((o) => (o.keyPoints.length > 0 ? o : { ...o, keyPoints: [o.summary] }));
export type BlockSummaryOutput = z.infer<typeof BlockSummaryOutput>;

export class InvalidModelOutputError extends Error {
  override readonly name = 'InvalidModelOutputError';
  readonly code = 'invalid_model_output';
}

/** Parse and normalise model output; the message always starts with "invalid L0-L2 layers". */
export function validateBlockSummary(raw: unknown): BlockSummaryOutput {
  const parsed = BlockSummaryOutput.safeParse(raw);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidModelOutputError(`invalid L0-L2 layers: ${details}`);
}
