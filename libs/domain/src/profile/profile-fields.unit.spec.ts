import { describe, expect, it } from 'vitest';
import {
  checkProfileLimits,
  describeLimitError,
  emptyProfileValues,
  fieldLimitError,
  LONG_PROFILE_FIELDS,
  PROFILE_FIELD_LIMITS,
  PROFILE_FIELDS,
  PROFILE_TOTAL_LIMIT,
  profileLength,
  profileStream,
  SHORT_PROFILE_FIELDS,
} from './profile-fields.ts';
import { isProfileEmpty, localTaskPlace, renderProfile } from './profile-render.ts';

describe('profile fields and limits (MM-PRO-2, §16)', () => {
  it('has the twelve fields with their limits; seven short ones', () => {
    expect(PROFILE_FIELDS).toHaveLength(12);
    expect(SHORT_PROFILE_FIELDS).toEqual([
      'userPreferredName',
      'assistantPreferredName',
      'preferredLanguage',
      'reasoningLanguage',
      'defaultLocation',
      'homeCity',
      'currentCity',
    ]);
    expect(LONG_PROFILE_FIELDS.map((f) => PROFILE_FIELD_LIMITS[f])).toEqual([
      1000, 1000, 1500, 1000, 1200,
    ]);
    expect(PROFILE_FIELD_LIMITS.defaultLocation).toBe(200);
  });

  it('counts code points: 😀中文 is 3', () => {
    expect(profileLength({ ...emptyProfileValues(), userPreferredName: '😀中文' })).toBe(3);
  });

  it('a 101-code-point name is rejected, 100 is accepted, naming the field', () => {
    expect(fieldLimitError('userPreferredName', '名'.repeat(100))).toBeNull();
    const error = fieldLimitError('userPreferredName', '😀'.repeat(101));
    expect(error).toEqual({
      code: 'field_too_long',
      field: 'userPreferredName',
      limit: 100,
      length: 101,
    });
    expect(describeLimitError(error!)).toMatch(/^userPreferredName .* at most 100 .* has 101/);
  });

  it('the total over 6,000 is rejected even when each field keeps its limit', () => {
    const values = emptyProfileValues();
    for (const f of LONG_PROFILE_FIELDS) values[f] = 'x'.repeat(PROFILE_FIELD_LIMITS[f]);
    expect(profileLength(values)).toBe(5700);
    expect(checkProfileLimits(values, 'defaultLocation', 'y'.repeat(200))).toBeNull();
    values.defaultLocation = 'y'.repeat(200);
    // Exactly 6,000 is within the total; one field more is not.
    expect(checkProfileLimits(values, 'homeCity', 'z'.repeat(100))).toBeNull();
    values.homeCity = 'z'.repeat(100);
    expect(checkProfileLimits(values, 'currentCity', 'Beijing')).toEqual({
      code: 'profile_too_long',
      field: 'currentCity',
      limit: PROFILE_TOTAL_LIMIT,
      length: 6007,
    });
  });

  it('keeps profile streams apart from every space id a client can use', () => {
    expect(profileStream('t1', 'default')).toEqual({ tenantId: 't1', spaceId: '~profile:default' });
  });
});

describe('locations (MM-PRO-3): task place, then current city, then default; never home', () => {
  const harbinOnTripToBeijing = {
    ...emptyProfileValues(),
    homeCity: 'Harbin',
    currentCity: 'Beijing',
  };

  it('home is Harbin and the user is in Beijing: the weather is Beijing’s, Harbin stays', () => {
    expect(localTaskPlace(harbinOnTripToBeijing)).toEqual({
      place: 'Beijing',
      from: 'currentCity',
    });
    expect(localTaskPlace(harbinOnTripToBeijing, 'Shanghai')).toEqual({
      place: 'Shanghai',
      from: 'task',
    });
    expect(harbinOnTripToBeijing.homeCity).toBe('Harbin');
    const text = renderProfile(harbinOnTripToBeijing);
    expect(text).toContain('if it names none, Beijing (current city)');
    expect(text).toContain('Home city: Harbin (where the user lives; trips do not change it');
  });

  it('without a current city the default location serves; the home city never does', () => {
    const values = { ...emptyProfileValues(), homeCity: 'Harbin', defaultLocation: 'Shenzhen' };
    expect(localTaskPlace(values)).toEqual({ place: 'Shenzhen', from: 'defaultLocation' });
    // The home city is not even an input of the rule.
    const homeOnly = { ...emptyProfileValues(), homeCity: 'Harbin' };
    expect(localTaskPlace(homeOnly)).toBeNull();
    expect(renderProfile({ ...emptyProfileValues(), homeCity: 'Harbin' })).toContain(
      'if it names none, ask',
    );
  });
});

describe('renderProfile', () => {
  it('an empty profile renders as nothing', () => {
    expect(isProfileEmpty(emptyProfileValues())).toBe(true);
    expect(renderProfile(emptyProfileValues())).toBe('');
  });

  it('explains languages and keeps set fields only, multi-line values indented', () => {
    const text = renderProfile({
      ...emptyProfileValues(),
      userPreferredName: 'Carol',
      preferredLanguage: 'Chinese',
      reasoningLanguage: 'English',
      standingInstructions: 'Cite sources.\nNo emojis.',
    });
    expect(text.split('\n')).toEqual([
      '- Address the user as: Carol',
      '- Final answers in: Chinese (the language of the final answer only)',
      '- Visible reasoning in: English (the language of visible reasoning only)',
      '- Standing instructions: Cite sources.',
      '  No emojis.',
    ]);
  });
});
