import { PROFILE_FIELDS, type ProfileValues } from './profile-fields.ts';

/**
 * MM-PRO-3: the place a local task (weather, "nearby", local tips) uses — the place the task
 * names, else `currentCity`, else `defaultLocation`; never `homeCity`, which is where the user
 * lives, not where they are. Null when none applies (the agent asks).
 */
export function localTaskPlace(
  values: Pick<ProfileValues, 'currentCity' | 'defaultLocation'>,
  placeInTask?: string | null,
): { place: string; from: 'task' | 'currentCity' | 'defaultLocation' } | null {
  if (placeInTask && placeInTask.trim() !== '') return { place: placeInTask.trim(), from: 'task' };
  if (values.currentCity !== '') return { place: values.currentCity, from: 'currentCity' };
  if (values.defaultLocation !== '')
    return { place: values.defaultLocation, from: 'defaultLocation' };
  return null;
}

export function isProfileEmpty(values: ProfileValues): boolean {
  return PROFILE_FIELDS.every((f) => values[f] === '');
}

const indent = (text: string) => text.replace(/\n/g, '\n  ');

/**
 * The profile as an agent reads it in every context (MM-PRO-1): the set fields under plain
 * labels, with a short note on how languages and locations are meant (MM-PRO-3), so that a
 * home city is never taken for today's whereabouts. Empty fields are left out; an empty profile
 * renders as the empty string (recall then shows none).
 */
export function renderProfile(values: ProfileValues): string {
  if (isProfileEmpty(values)) return '';
  const lines: string[] = [];
  const add = (label: string, value: string, note?: string) => {
    if (value !== '') lines.push(`- ${label}: ${indent(value)}${note ? ` (${note})` : ''}`);
  };
  add('Address the user as', values.userPreferredName);
  add('Your name', values.assistantPreferredName);
  add('Final answers in', values.preferredLanguage, 'the language of the final answer only');
  add('Visible reasoning in', values.reasoningLanguage, 'the language of visible reasoning only');
  const { currentCity, defaultLocation, homeCity } = values;
  if (currentCity !== '' || defaultLocation !== '' || homeCity !== '') {
    const local = localTaskPlace(values);
    const rule = local
      ? `for weather, "nearby" and local tips use the place the task names; if it names none, ${local.place} (${local.from === 'currentCity' ? 'current city' : 'default location'})`
      : 'for weather, "nearby" and local tips use the place the task names; if it names none, ask';
    lines.push(`- Locations: ${rule}. Never assume the user is at home.`);
    add('  Current city', currentCity, 'where the user is now; stays until changed or cleared');
    add(
      '  Default location',
      defaultLocation,
      'a reference point only, not where the user lives or is',
    );
    add(
      '  Home city',
      homeCity,
      'where the user lives; trips do not change it; not for local tasks',
    );
  }
  add('Response preferences', values.responsePreferences);
  add('Standing instructions', values.standingInstructions);
  add('Background', values.userBackground);
  add('Long-term goals', values.longTermGoals);
  add('Notes', values.persistentNotes);
  return lines.join('\n');
}
