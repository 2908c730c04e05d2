import { isHedged, subjectOf, type Finding } from './findings.ts';

/**
 * Literal statuses (MM-GRF-3). Each value is the phrase the sources use, normalised only in
 * wording ("still has to be verified" → "pending verification"); a status the text does not
 * state ("passed", "done", "in progress") is never produced.
 */
function pending(participle: string, noun: string): RegExp {
  return new RegExp(
    String.raw`\b(?:pending|awaiting|waiting (?:for|on)) ${noun}\b|\b(?:still )?(?:has|have|needs?) to be (?:re-?)?${participle}\b|\b(?:has|have) not (?:yet )?been ${participle}\b|\b(?:is|are) (?:still )?(?:not yet |un|yet to be )${participle}\b`,
    'giu',
  );
}

const STATES: readonly (readonly [RegExp, string])[] = [
  [pending('verified', 'verification'), 'pending verification'],
  [
    /待验证|有待验证|尚未验证|还没(?:有)?验证|还(?:需要|需|要|得)(?:再)?验证|仍需验证/gu,
    'pending verification',
  ],
  [pending('reviewed', 'review'), 'pending review'],
  [/待审核|待评审|尚未审核|还(?:需要|需|要|得)审核/gu, 'pending review'],
  [pending('approved', 'approval'), 'pending approval'],
  [/待审批|尚未批准|还(?:需要|需|要|得)审批/gu, 'pending approval'],
  [/\b(?:is|are) (?:still |currently )?blocked\b/giu, 'blocked'],
  [/被阻塞|受阻/gu, 'blocked'],
];

export function stateFindings(clause: string): Finding[] {
  const out: Finding[] = [];
  for (const [pattern, value] of STATES) {
    for (const m of clause.matchAll(pattern)) {
      const leadIn = clause.slice(0, m.index);
      if (!isHedged(leadIn)) out.push({ kind: 'state', subject: subjectOf(leadIn), value });
    }
  }
  return out;
}
