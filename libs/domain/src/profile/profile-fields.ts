import { z } from 'zod';
import { codePointLength } from '../blocks/tokens.ts';

/**
 * MM-PRO-2: the twelve fields of the resident profile and their limits in code points. The
 * first seven are the short fields (names, languages, locations) that maintenance never touches
 * (MM-PRO-6); the other five hold prose it may compress.
 */
export const PROFILE_FIELD_LIMITS = {
  userPreferredName: 100,
  assistantPreferredName: 100,
  preferredLanguage: 100,
  reasoningLanguage: 100,
  defaultLocation: 200,
  homeCity: 100,
  currentCity: 100,
  responsePreferences: 1000,
  standingInstructions: 1000,
  userBackground: 1500,
  longTermGoals: 1000,
  persistentNotes: 1200,
} as const;

export type ProfileField = keyof typeof PROFILE_FIELD_LIMITS;
export const PROFILE_FIELDS = Object.keys(PROFILE_FIELD_LIMITS) as ProfileField[];
export const ProfileFieldName = z.enum(PROFILE_FIELDS as [ProfileField, ...ProfileField[]]);

export const SHORT_PROFILE_FIELDS: readonly ProfileField[] = PROFILE_FIELDS.slice(0, 7);
export const LONG_PROFILE_FIELDS: readonly ProfileField[] = PROFILE_FIELDS.slice(7);

/** MM-PRO-2: all twelve fields together hold at most this many code points. */
export const PROFILE_TOTAL_LIMIT = 6000;

/** What the user reads for each field (settings, the rendered profile, error messages). */
export const PROFILE_FIELD_USES: Record<ProfileField, string> = {
  userPreferredName: 'how to address the user',
  assistantPreferredName: "the assistant's name",
  preferredLanguage: 'the language of final answers',
  reasoningLanguage: 'the language of visible reasoning',
  defaultLocation: 'the place to use when a task names none',
  homeCity: "the user's stable residence",
  currentCity: 'where the user is now, maybe for a while',
  responsePreferences: 'answer style',
  standingInstructions: 'lasting instructions',
  userBackground: 'background',
  longTermGoals: 'long-term goals',
  persistentNotes: 'other lasting notes',
};

export type ProfileValues = Record<ProfileField, string>;

export function emptyProfileValues(): ProfileValues {
  return Object.fromEntries(PROFILE_FIELDS.map((f) => [f, ''])) as ProfileValues;
}

/**
 * A value as stored: outer whitespace trimmed, line ends unified. Inner line breaks stay (the
 * long fields are lists of instructions or notes); an empty value clears the field.
 */
export function normaliseProfileValue(value: string): string {
  return value.replace(/\r\n?/g, '\n').trim();
}

export type ProfileLimitError =
  | { code: 'field_too_long'; field: ProfileField; limit: number; length: number }
  | { code: 'profile_too_long'; field: ProfileField; limit: number; length: number };

/** The first limit `value` breaks for `field` (MM-PRO-2: over a limit → reject), or null. */
export function fieldLimitError(field: ProfileField, value: string): ProfileLimitError | null {
  const length = codePointLength(value);
  const limit = PROFILE_FIELD_LIMITS[field];
  return length > limit ? { code: 'field_too_long', field, limit, length } : null;
}

/** Code points of every field together. */
export function profileLength(values: ProfileValues): number {
  return PROFILE_FIELDS.reduce((sum, f) => sum + codePointLength(values[f]), 0);
}

/** Whether `values` with `field` set to `value` keeps every limit, the total included. */
export function checkProfileLimits(
  values: ProfileValues,
  field: ProfileField,
  value: string,
): ProfileLimitError | null {
  const own = fieldLimitError(field, value);
  if (own) return own;
  const length = profileLength({ ...values, [field]: value });
  return length > PROFILE_TOTAL_LIMIT
    ? { code: 'profile_too_long', field, limit: PROFILE_TOTAL_LIMIT, length }
    : null;
}

/** A limit error in the user's words, naming the field. */
export function describeLimitError(error: ProfileLimitError): string {
  return error.code === 'field_too_long'
    ? `${error.field} (${PROFILE_FIELD_USES[error.field]}) holds at most ${error.limit} characters; this value has ${error.length}`
    : `with this ${error.field} the profile would hold ${error.length} characters; at most ${error.limit} in all`;
}

/** Ids of the profiles of one tenant: `default` always exists (a space unbound uses it). */
export const DEFAULT_PROFILE_ID = 'default';
export const PROFILE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** The log stream of a tenant's profile: a key no space id can take (they start alphanumeric). */
export const PROFILE_STREAM_PREFIX = '~profile:';
export function profileStream(tenantId: string, profileId: string) {
  return { tenantId, spaceId: `${PROFILE_STREAM_PREFIX}${profileId}` };
}
export function isProfileStream(spaceId: string): boolean {
  return spaceId.startsWith(PROFILE_STREAM_PREFIX);
}
