import { codePointLength } from '../blocks/tokens.ts';

const REJECTED = new Set(['other', '其他', '其它']);
const REJECTED_PREFIXES = ['chapter:', 'section_', 'topic-'];
// A path: two non-empty parts around a separator with spaces, or an arrow/backslash/">".
const PATH = /\S\s+[/\\>→]\s+\S|\S\s*[\\>→]\s*\S/;

/** MM-EVT-18: at most 2 unique strings of ≤ 64 code points; no generic or path-like values. */
export function validCatalogHints(hints: unknown): string[] {
  if (!Array.isArray(hints)) return [];
  const out: string[] = [];
  for (const h of hints) {
    if (typeof h !== 'string') continue;
    const v = h.trim();
    if (v === '' || codePointLength(v) > 64 || REJECTED.has(v.toLowerCase())) continue;
    if (REJECTED_PREFIXES.some((p) => v.toLowerCase().startsWith(p))) continue;
    if (PATH.test(v)) continue;
    if (!out.includes(v)) out.push(v);
    if (out.length === 2) break;
  }
  return out;
}
