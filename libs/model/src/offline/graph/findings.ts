import type { NodeType } from '../../graph.schema.ts';
import { ENGLISH_STOP_WORDS } from '../stop-words.ts';
import { PROJECT_TOKEN } from './names.ts';

/**
 * What the recognisers read from one clause, before it is tied to nodes. The subject of a
 * link or state is kept as words ("we", "Dana", "CI") and resolved later against the event's
 * participants and projects, because only the whole batch knows which names are projects.
 */
export type Subject =
  /** we, our team, this project, 我们: the event's project, if it has one. */
  | { kind: 'group' }
  /** I, me, 我: the event's only named participant, if it has exactly one. */
  | { kind: 'self' }
  /** "project X", "X project", 项目X. */
  | { kind: 'project'; name: string }
  /** Any other words before the cue; matched by their ending against known names. */
  | { kind: 'tail'; text: string }
  | { kind: 'none' };

export type LinkRelation = 'uses' | 'works_at' | 'lives_in';

export type Finding =
  /** A name the text gives a type to, with no claim attached. */
  | { kind: 'entity'; type: NodeType; name: string }
  /** subject –relation→ name; the target node type follows from the relation. */
  | { kind: 'link'; relation: LinkRelation; subject: Subject; name: string }
  /** A literal status of the subject ("pending verification"). */
  | { kind: 'state'; subject: Subject; value: string };

export const LINK_TARGET: Record<LinkRelation, NodeType> = {
  uses: 'tool',
  works_at: 'organization',
  lives_in: 'place',
};

/**
 * Words that turn a statement into a plan, a wish, a question, a negation or the past; a link
 * or state whose lead-in has one is not asserted now (MM-GRF-3: a plan is not progress).
 */
const HEDGE_EN =
  /\b(?:will|would|could|should|might|must|shall|going to|gonna|plan(?:s|ned|ning)? to|want(?:s|ed)? to|need(?:s|ed)? to|try(?:ing)? to|tried to|consider(?:s|ed|ing)?|thinking (?:about|of)|maybe|perhaps|if|whether|unless|not|no longer|never|stopped|quit|used to|previously|formerly|let's|let us)\b|n't\b|'ll\b/iu;
const HEDGE_ZH =
  /打算|计划|准备|考虑|如果|假如|是否|要不要|可能|也许|想|将|会|不|没|别|曾经|以前|之前|原来|过去/u;

/** Case-sensitive so that the month ("In May we switched…") is not a hedge. */
const HEDGE_MAY = /\bmay\b/u;

/**
 * Only the words closest to a cue decide its subject and whether it is hedged; the cap also
 * keeps a long run-on clause with many cues linear.
 */
const LEAD_IN_MAX = 120;

export function isHedged(leadIn: string): boolean {
  const text = leadIn.slice(-LEAD_IN_MAX).replace(/[’‘]/gu, "'");
  return HEDGE_EN.test(text) || HEDGE_MAY.test(text) || HEDGE_ZH.test(text);
}

const TRAILING_FILLER_EN =
  /\s+(?:now|already|also|still|just|currently|finally|recently|officially|actually|eventually|then|all|both|has|have|had|is|are|was|were|do|does|did)$|(?:'ve|'s|'re|’ve|’s|’re)$/iu;
const TRAILING_FILLER_ZH = /(?:现在|目前|已经|一直|正在|都|也|就|还|正|又|终于|全面)$/u;
const GROUP_EN =
  /(?:^|\s)(?:we|our team|the team|this project|the project|our project|this repo|the repo|our repo|this repository|the repository|this codebase|the codebase|our codebase|the monorepo|our monorepo|this monorepo)$/iu;
const SELF_EN = /(?:^|\s)(?:i|me|myself)$/iu;
const GROUP_ZH = /(?:我们|咱们|大家|团队|本项目|这个项目|该项目|项目组)$/u;
const PROJECT_BEFORE = new RegExp(String.raw`(?:^|\s)[Pp]roject\s+(${PROJECT_TOKEN})$`, 'u');
const PROJECT_AFTER = new RegExp(String.raw`(?:^|\s)(${PROJECT_TOKEN})\s+project$`, 'u');
const PROJECT_ZH = /(?:项目\s*([A-Za-z][\w-]*)|([A-Za-z][\w-]*)\s*项目)$/u;

/** The subject of a cue: the words right before it, with adverbs and auxiliaries removed. */
export function subjectOf(leadIn: string): Subject {
  let text = leadIn.slice(-LEAD_IN_MAX).trim();
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(TRAILING_FILLER_EN, '').replace(TRAILING_FILLER_ZH, '').trim();
  }
  if (text === '') return { kind: 'none' };
  // Before the project patterns: "This project" is the event's project, not one named "This".
  if (GROUP_EN.test(text) || GROUP_ZH.test(text)) return { kind: 'group' };
  if (SELF_EN.test(text) || text.endsWith('我')) return { kind: 'self' };
  const project =
    PROJECT_BEFORE.exec(text)?.[1] ??
    PROJECT_AFTER.exec(text)?.[1] ??
    PROJECT_ZH.exec(text)?.slice(1).find(Boolean);
  if (project && isProjectName(project)) return { kind: 'project', name: project };
  return { kind: 'tail', text };
}

/** Words around "project" that are not its name ("Project Manager", "This project"). */
const NOT_A_PROJECT_NAME = new Set(
  `manager managers management lead leader leads plan plans planning team teams meeting meetings
  board owner owners scope status timeline deadline budget proposal goal goals update updates
  review kickoff name names files folder root page`
    .trim()
    .split(/\s+/u),
);

export function isProjectName(name: string): boolean {
  const lower = name.toLowerCase();
  return !NOT_A_PROJECT_NAME.has(lower) && !ENGLISH_STOP_WORDS.has(lower);
}
