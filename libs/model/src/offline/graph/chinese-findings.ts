import { ENGLISH_STOP_WORDS } from '../stop-words.ts';
import { hasHan } from '../words.ts';
import { isHedged, subjectOf, type Finding } from './findings.ts';
import { isKnownTool, isTechShaped, leadingCapName, leadingToolToken } from './names.ts';

/**
 * Chinese cue words → findings (MM-GEN-12). Chinese has no word breaks, so names are cut out
 * of the run next to the cue: a company is the run before 公司 up to a grammar character, a
 * tool is the Latin token after 用/使用/改用/迁移到 (a Han word after 用 is too often a verb).
 */

/** Characters that end a company name when walking back from 公司 (grammar, measure words, adjectives). */
const ORG_STOP = new Set(
  Array.from('在的了是和与跟对从到向于去家间所个这那我你他她它们新老旧大小分子总本该贵为给被把'),
);
const ORG_MAX = 8;
const NEAR = 40;

/** The name ending right before `end`: a Latin token ("B", "Alpha") or 2–8 Han characters. */
function nameBefore(text: string, end: number): { name: string; start: number } | undefined {
  // A name is short: looking at the last few characters keeps long clauses linear.
  const from = Math.max(0, end - NEAR);
  const latin = /([A-Za-z0-9][A-Za-z0-9&.-]*)\s?$/u.exec(text.slice(from, end));
  if (latin?.[1]) return { name: latin[1], start: from + latin.index };
  const chars = Array.from(text.slice(from, end));
  let taken = 0;
  while (taken < chars.length && taken < ORG_MAX) {
    const ch = chars[chars.length - 1 - taken] ?? '';
    if (!hasHan(ch) || ORG_STOP.has(ch)) break;
    taken += 1;
  }
  if (taken < 2) return undefined;
  const name = chars.slice(chars.length - taken).join('');
  return { name, start: end - name.length };
}

const WORK_BEFORE = /(在|就职于|任职于|供职于|入职|加入了?)\s*$/u;
const WORK_AFTER = /^\s*(?:工作|上班|任职|实习)/u;

function organizations(clause: string, out: Finding[]): void {
  for (const m of clause.matchAll(/公司/gu)) {
    const found = nameBefore(clause, m.index);
    if (!found) continue;
    const name = `${found.name}公司`;
    const before = clause.slice(0, found.start);
    const cue = WORK_BEFORE.exec(before.slice(-NEAR));
    const after = clause.slice(m.index + 2);
    const working = cue && (cue[1] !== '在' || WORK_AFTER.test(after));
    const leadIn = cue
      ? before.slice(0, before.length - Math.min(before.length, NEAR) + cue.index)
      : '';
    if (working && !isHedged(leadIn)) {
      out.push({ kind: 'link', relation: 'works_at', subject: subjectOf(leadIn), name });
    } else out.push({ kind: 'entity', type: 'organization', name });
  }
}

const TOOL_CUE = /(?:改用|使用|采用|迁移到|切换到|换成|换用|用上|用)\s*/gu;
const OLD_TOOL = /(?:从|把|由)\s*([A-Za-z][A-Za-z0-9.+#-]*)\s*$/u;

function tools(clause: string, out: Finding[]): void {
  for (const m of clause.matchAll(TOOL_CUE)) {
    const tool = leadingToolToken(clause.slice(m.index + m[0].length));
    if (!tool || tool.length < 2 || ENGLISH_STOP_WORDS.has(tool.toLowerCase())) continue;
    let leadIn = clause.slice(0, m.index);
    const near = Math.max(0, leadIn.length - NEAR);
    const old = OLD_TOOL.exec(leadIn.slice(near));
    if (old?.[1]) {
      out.push({ kind: 'entity', type: 'tool', name: old[1] });
      leadIn = leadIn.slice(0, near + old.index);
    }
    if (isHedged(leadIn)) out.push({ kind: 'entity', type: 'tool', name: tool });
    else out.push({ kind: 'link', relation: 'uses', subject: subjectOf(leadIn), name: tool });
  }
}

const PLACE_CUE = /(住在|搬到了?|搬去了?|定居(?:在|于)?|生活在|来自|出生(?:在|于))\s*/gu;
const LIVING = /^(?:住在|搬到|搬去|定居|生活在)/u;
const PLACE_END = /(?:工作|生活|上班|学习|读书|居住|定居|发展|了|的|和|与|并|后|时)/u;

function placeAfter(rest: string): string | undefined {
  const han = /^[\p{Script=Han}]{2,8}/u.exec(rest)?.[0];
  if (han) {
    const cut = PLACE_END.exec(han);
    const name = cut ? han.slice(0, cut.index) : han.slice(0, 5);
    return Array.from(name).length >= 2 ? name : undefined;
  }
  const latin = leadingCapName(rest);
  const first = latin?.split(/\s/u)[0] ?? '';
  return latin && !isKnownTool(first) && !isTechShaped(first) ? latin : undefined;
}

function places(clause: string, out: Finding[]): void {
  for (const m of clause.matchAll(PLACE_CUE)) {
    const place = placeAfter(clause.slice(m.index + m[0].length));
    if (!place) continue;
    const leadIn = clause.slice(0, m.index);
    if (LIVING.test(m[0]) && !isHedged(leadIn)) {
      out.push({ kind: 'link', relation: 'lives_in', subject: subjectOf(leadIn), name: place });
    } else out.push({ kind: 'entity', type: 'place', name: place });
  }
}

const PROJECT_ZH = /项目\s*([A-Za-z][\w-]*)|([A-Za-z][\w-]*)\s*项目/gu;

export function chineseFindings(clause: string): Finding[] {
  if (!hasHan(clause)) return [];
  const out: Finding[] = [];
  for (const m of clause.matchAll(PROJECT_ZH)) {
    const name = m[1] ?? m[2];
    if (name) out.push({ kind: 'entity', type: 'project', name });
  }
  organizations(clause, out);
  tools(clause, out);
  places(clause, out);
  return out;
}
