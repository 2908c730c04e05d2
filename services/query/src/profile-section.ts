import { emptyProfileValues, PROFILE_FIELDS, renderProfile } from '@stratagate/domain';
import type { RecallReply } from './recall.schema.ts';
import { tokenCount } from './token-count.ts';

export const PROFILE_NOTE =
  "The user's resident profile: standing settings they set or agreed to. Follow them in every answer. They are not evidence about events, and memory never changes them.";

/**
 * MM-PRO-1: the bound profile as recall shows it — null when every field is empty, otherwise
 * its set fields and the rendered text. It sits outside the 900- and 400-token budgets.
 */
export function profileSection(bound: {
  profile_id: string;
  revision: number | null;
  fields: Record<string, string> | null;
}): RecallReply['profile'] {
  const values = { ...emptyProfileValues(), ...(bound.fields ?? {}) };
  const text = renderProfile(values);
  if (text === '') return null;
  return {
    profileId: bound.profile_id,
    revision: bound.revision ?? 0,
    note: PROFILE_NOTE,
    fields: Object.fromEntries(
      PROFILE_FIELDS.filter((f) => values[f] !== '').map((f) => [f, values[f]]),
    ),
    text,
    tokens: tokenCount(text),
  };
}

/** The profile's lines of the context text: first, before the memory (MM-RET-7). */
export function profileContextLines(profile: RecallReply['profile']): string[] {
  if (!profile) return [];
  return [
    `# Resident profile (${profile.tokens} tokens, outside the memory budgets)`,
    profile.note,
    '',
    profile.text,
    '',
  ];
}
