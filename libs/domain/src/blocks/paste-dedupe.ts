import { splitParts, type TextPart } from './text-parts.ts';
import { codePointLength, estimateTokens } from './tokens.ts';

export const REPEATED_PASTE_MARKER = '[repeated paste omitted; original remains in L5]';

/** MM-BLK-12: prose parts this long (normalised) count as pastes. */
export const PASTE_MIN_CHARS = 80;

const CODE_LIKE =
  /\b(?:const|let|var|function|class|import|export|def|SELECT|INSERT|UPDATE)\b|=>|[{};]/;

function normalise(text: string): string {
  return text.replace(/\s+/gu, ' ').trim().toLowerCase();
}

function isPasteCandidate(part: TextPart, normalised: string): boolean {
  if (part.kind === 'fence') return true;
  if (part.text.trim().includes('\n') && CODE_LIKE.test(part.text)) return true;
  return codePointLength(normalised) >= PASTE_MIN_CHARS;
}

/**
 * MM-BLK-12 across the texts of one block, in order: the first copy of a paste stays and later
 * copies (compared with whitespace collapsed and lower-cased) become the marker. A copy no longer
 * than the marker is kept: replacing it would grow L3 and trip the MM-BLK-14 guard, which would
 * then throw away every other L3 saving in the block.
 */
export function dedupePastes(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const markerTokens = estimateTokens(REPEATED_PASTE_MARKER);
  return texts.map((text) => {
    const { parts, trailing } = splitParts(text);
    let changed = false;
    const rebuilt = parts.map((part) => {
      const key = normalise(part.text);
      if (!isPasteCandidate(part, key)) return part.lead + part.text;
      if (!seen.has(key)) {
        seen.add(key);
        return part.lead + part.text;
      }
      if (estimateTokens(part.text) <= markerTokens) return part.lead + part.text;
      changed = true;
      return part.lead + REPEATED_PASTE_MARKER;
    });
    return changed ? rebuilt.join('') + trailing : text;
  });
}
