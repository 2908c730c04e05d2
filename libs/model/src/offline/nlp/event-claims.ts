import { splitSentences } from '../sentences.ts';
import { analyseSentence } from './analysis.ts';
import { claimsOf, mayStateClaim, uniqueClaims, type Claim } from './claims.ts';

/**
 * The claims of a recorded event, read back from its summary ("<Speaker>: <sentences> (in
 * reply to …)") and title ("Priya covers infra", "Mia: is vegan") with the extractor's own
 * analysis: how the extractor compares a new statement with its timeline, and how the graph
 * proposer reads an event.
 */
const LABEL = /^([^:：]{1,60})[:：]\s*/u;
const REPLY_CONTEXT = /\s*\(in reply to [\s\S]*\)\s*$/u;

export function eventClaims(entry: { title: string; summary: string }): Claim[] {
  const out: Claim[] = [];
  const summary = entry.summary.replace(REPLY_CONTEXT, '');
  const label = LABEL.exec(summary);
  const speaker = label?.[1]?.trim();
  const body = label ? summary.slice(label[0].length) : summary;
  for (const sentence of splitSentences(body).slice(0, 4)) {
    // A question states nothing.
    if (/[?？]["'”’)）]*$/u.test(sentence) || !mayStateClaim(sentence)) continue;
    out.push(...claimsOf(analyseSentence(sentence), speaker ? { speaker } : {}));
  }
  // The title may name a resolved subject ("Priya covers infra"); "Mia: is vegan" reads as "Mia is vegan".
  if (!mayStateClaim(entry.title)) return uniqueClaims(out);
  const titled = LABEL.exec(entry.title);
  if (titled?.[1]) {
    const rest = entry.title.slice(titled[0].length);
    const text = /^\p{Ll}/u.test(rest) ? `${titled[1]} ${rest}` : rest;
    out.push(...claimsOf(analyseSentence(text), { speaker: titled[1].trim() }));
  } else out.push(...claimsOf(analyseSentence(entry.title), speaker ? { speaker } : {}));
  return uniqueClaims(out);
}
