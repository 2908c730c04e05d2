import { isHedged, isProjectName, subjectOf, type Finding } from './findings.ts';
import {
  CAP_NAME,
  isKnownTool,
  isTechShaped,
  isToolName,
  leadingCapName,
  leadingToolToken,
  PROJECT_TOKEN,
} from './names.ts';

/**
 * English cue words → findings. Every name is copied from the clause right after (or before)
 * its cue; nothing is looked up or paraphrased. Cues are matched case-insensitively, names
 * case-sensitively (a place or company is capitalised, a tool may not be).
 */

interface CueHit {
  cue: string;
  leadIn: string;
  rest: string;
}

function* cueHits(clause: string, pattern: RegExp): Generator<CueHit> {
  for (const m of clause.matchAll(pattern)) {
    yield {
      cue: m[0].toLowerCase(),
      leadIn: clause.slice(0, m.index),
      rest: clause.slice(m.index + m[0].length),
    };
  }
}

const USE =
  /\b(?:uses|use|using|relies on|rely on|switched(?: over)? to|migrated to|moved to|adopted|went with|chose|picked)\s+/giu;
const FROM_TO = /\b(?:switched|migrated|moved|changed)(?: over)? from\s+/giu;
const REPLACED = /\breplaced\s+/giu;
const WORK = /\b(?:works?|working|employed|a job|interning)\s+(?:at|for|by)\s+/giu;
const PAST_WORK = /\b(?:worked|interned)\s+(?:at|for)\s+/giu;
const COMPANY = /\b(?:company|employer|firm|startup|organi[sz]ation)\s+(?:called\s+|named\s+)?/giu;
const ORG_SUFFIX = /(?:\s(?:Inc|Ltd|LLC|GmbH|Corp|Corporation|AG|PLC)|\p{Ll}(?:Corp|Inc))$/u;
const LIVE = /\b(?:lives?|living|based|settled)\s+in\s+|\b(?:moved|relocated)\s+to\s+/giu;
const PLACE =
  /\b(?:lived|grew up|born|raised|vacation|holiday|holidays)\s+in\s+|\b(?:trip|travell?ed|flew)\s+to\s+|\b(?:am|'m|’m|come|comes|came)\s+from\s+/giu;
const PROJECT_NAMED = new RegExp(
  String.raw`\b[Pp]roject\s+(${PROJECT_TOKEN})|\b(?:[Tt]he|[Oo]ur|[Tt]his|[Mm]y|[Tt]heir|[Yy]our)\s+(${PROJECT_TOKEN})\s+project\b`,
  'gu',
);
const CAP_NAMES = new RegExp(CAP_NAME, 'gu');
const TO_NEXT = /^\s+(?:to|with)\s+/u;

/** A place after a cue: capitalised, and not a tool ("moved to pnpm" is handled as usage). */
function placeAfter(rest: string): string | undefined {
  const name = leadingCapName(rest);
  const first = name?.split(/\s/u)[0] ?? '';
  return name && !isKnownTool(first) && !isTechShaped(first) ? name : undefined;
}

function usage(hit: CueHit, out: Finding[]): void {
  const tool = leadingToolToken(hit.rest);
  if (!tool || !isToolName(tool, hit.cue.startsWith('moved'))) return;
  // A plan or a negation still names the tool, but asserts no usage (MM-GRF-3).
  if (isHedged(hit.leadIn)) out.push({ kind: 'entity', type: 'tool', name: tool });
  else out.push({ kind: 'link', relation: 'uses', subject: subjectOf(hit.leadIn), name: tool });
}

/** "switched from npm to pnpm", "replaced npm with pnpm": both are tools, only the new one is used. */
function replacement(hit: CueHit, out: Finding[]): void {
  const old = leadingToolToken(hit.rest);
  if (!old || !isToolName(old, true) || isHedged(hit.leadIn)) return;
  const after = hit.rest.slice(hit.rest.indexOf(old) + old.length);
  const joint = TO_NEXT.exec(after);
  const next = joint ? leadingToolToken(after.slice(joint[0].length)) : undefined;
  out.push({ kind: 'entity', type: 'tool', name: old });
  if (next && isToolName(next, true)) {
    out.push({ kind: 'link', relation: 'uses', subject: subjectOf(hit.leadIn), name: next });
  }
}

function projects(clause: string, out: Finding[]): void {
  for (const m of clause.matchAll(PROJECT_NAMED)) {
    const name = m[1] ?? m[2] ?? '';
    if (name !== '' && isProjectName(name)) out.push({ kind: 'entity', type: 'project', name });
  }
}

export function englishFindings(clause: string): Finding[] {
  const out: Finding[] = [];
  projects(clause, out);
  for (const hit of cueHits(clause, USE)) usage(hit, out);
  for (const hit of cueHits(clause, FROM_TO)) replacement(hit, out);
  for (const hit of cueHits(clause, REPLACED)) replacement(hit, out);
  for (const hit of cueHits(clause, WORK)) {
    const org = leadingCapName(hit.rest);
    if (!org) continue;
    if (isHedged(hit.leadIn)) out.push({ kind: 'entity', type: 'organization', name: org });
    else
      out.push({ kind: 'link', relation: 'works_at', subject: subjectOf(hit.leadIn), name: org });
  }
  for (const hit of [...cueHits(clause, PAST_WORK), ...cueHits(clause, COMPANY)]) {
    const org = leadingCapName(hit.rest);
    if (org) out.push({ kind: 'entity', type: 'organization', name: org });
  }
  for (const m of clause.matchAll(CAP_NAMES)) {
    if (ORG_SUFFIX.test(m[0])) out.push({ kind: 'entity', type: 'organization', name: m[0] });
  }
  for (const hit of cueHits(clause, LIVE)) {
    const place = placeAfter(hit.rest);
    if (!place) continue;
    if (isHedged(hit.leadIn)) out.push({ kind: 'entity', type: 'place', name: place });
    else
      out.push({ kind: 'link', relation: 'lives_in', subject: subjectOf(hit.leadIn), name: place });
  }
  for (const hit of cueHits(clause, PLACE)) {
    const place = placeAfter(hit.rest);
    if (place) out.push({ kind: 'entity', type: 'place', name: place });
  }
  return out;
}
