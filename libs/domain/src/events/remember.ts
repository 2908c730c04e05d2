import type { Criticality, EventType } from './memory-event.ts';
import { takeCodePoints } from '../blocks/tokens.ts';

export const REMEMBER_CATEGORIES = ['preference', 'decision', 'correction', 'fact'] as const;
export type RememberCategory = (typeof REMEMBER_CATEGORIES)[number];

/** MM-REM-2 limits. */
export const REMEMBER_SUMMARY_MAX = 2000;
export const REMEMBER_TITLE_MAX = 80;
export const AGENT_RECORDED_TAG = 'agent-recorded';

export interface RememberCandidateCard {
  title: string;
  summary: string;
  tags: string[];
  scope: 'user';
  criticality: Criticality;
  eventType: EventType;
}

const cut = takeCodePoints;

/**
 * MM-REM-2: the event a "remember" call proposes. The summary is the collapsed content; the title
 * its first sentence (split after `。．!！?？;` or at a newline); a correction is a change, a
 * decision a decision, anything else "other". Scope is the user's; only a preference gets the
 * preference floor.
 */
export function rememberCandidate(
  content: string,
  category: RememberCategory | null,
): RememberCandidateCard {
  const firstLine = content.split(/\r?\n/).find((line) => line.trim() !== '') ?? content;
  const summary = cut(content.replace(/\s+/g, ' ').trim(), REMEMBER_SUMMARY_MAX);
  const sentence = /^[\s\S]*?[。．!！?？;]/u.exec(firstLine.trim())?.[0] ?? firstLine;
  const title = cut(sentence.replace(/\s+/g, ' ').trim(), REMEMBER_TITLE_MAX) || cut(summary, 80);
  return {
    title,
    summary,
    tags: [AGENT_RECORDED_TAG, ...(category ? [`category:${category}`] : [])],
    scope: 'user',
    criticality: category === 'preference' ? 'preference' : 'routine',
    eventType:
      category === 'decision' ? 'decision' : category === 'correction' ? 'change' : 'other',
  };
}
