import { describe, expect, it } from 'vitest';
import { emptyProfileValues } from './profile-fields.ts';
import { routeRemember } from './remember-routing.ts';

const empty = emptyProfileValues();
const route = (content: string, current = empty) => routeRemember(content, current);

describe('routeRemember (MM-REM-6): profile, event or conversation', () => {
  it('routes the three example sentences to profile, event and conversation', () => {
    expect(route('From now on answer in Chinese.')).toMatchObject({
      destination: 'profile',
      field: 'preferredLanguage',
      value: 'Chinese',
    });
    expect(route('This project switched to pnpm.')).toMatchObject({ destination: 'event' });
    expect(route('Keep this answer short.')).toMatchObject({ destination: 'conversation' });
  });

  it('does the same in Chinese', () => {
    expect(route('以后默认用中文回答')).toMatchObject({
      destination: 'profile',
      field: 'preferredLanguage',
      value: '中文',
    });
    expect(route('这个项目已经改用 pnpm')).toMatchObject({ destination: 'event' });
    expect(route('这次回答简短一点')).toMatchObject({ destination: 'conversation' });
  });

  it.each([
    ['Call me Carol from now on.', 'userPreferredName', 'Carol'],
    ['My name is Caroline Smith and I like tea.', 'userPreferredName', 'Caroline Smith'],
    ['叫我小王', 'userPreferredName', '小王'],
    ['Your name is Atlas.', 'assistantPreferredName', 'Atlas'],
    ['Think in English, please.', 'reasoningLanguage', 'English'],
    ['I live in Harbin.', 'homeCity', 'Harbin'],
    ['我常住哈尔滨', 'homeCity', '哈尔滨'],
    ["I'm on a trip to Beijing this week.", 'currentCity', 'Beijing'],
    ['I am currently in New York for a conference.', 'currentCity', 'New York'],
    ['我现在在北京出差', 'currentCity', '北京'],
    ['Use Shenzhen as my default location.', 'defaultLocation', 'Shenzhen'],
  ])('%s → %s = %s', (content, field, value) => {
    expect(route(content)).toMatchObject({ destination: 'profile', field, value });
  });

  it.each([
    ['Always answer with code first.', 'responsePreferences'],
    ['I prefer short answers with bullet points.', 'responsePreferences'],
    ['From now on, never use emojis.', 'standingInstructions'],
    ['以后不要用表情', 'standingInstructions'],
    ['From now on always cite your sources.', 'standingInstructions'],
    ['Always double-check the dates you give me.', 'standingInstructions'],
    ['Please, from now on greet me by name.', 'standingInstructions'],
    ['Cite the page numbers from now on.', 'standingInstructions'],
    ['My goal is to run a marathon next year.', 'longTermGoals'],
    ['I am a backend engineer at a fintech.', 'userBackground'],
  ])('%s → the statement in %s', (content, field) => {
    expect(route(content)).toMatchObject({ destination: 'profile', field, value: content });
  });

  it('past or future trips and plain facts are events; they change no city (MM-PRO-3)', () => {
    for (const fact of [
      'I was in Tokyo last month.',
      "I'm flying to Shanghai next week.",
      'I always use pnpm in my projects.',
      'From now on we deploy on Fridays.',
      'From now on, Atlas ships every second week.',
      'Always the same story with this build.',
      'The Atlas release is planned for June.',
      '下周我要去上海出差',
    ]) {
      expect(route(fact)).toMatchObject({ destination: 'event' });
    }
  });

  it('a request for this answer only stays in the conversation, whatever its verb', () => {
    expect(route('Cite your sources in this answer.')).toMatchObject({
      destination: 'conversation',
    });
    expect(route('Double-check the dates for now.')).toMatchObject({ destination: 'conversation' });
  });

  it('a prose field gains the statement as a line; the same statement again leaves it as it is', () => {
    const current = { ...empty, responsePreferences: 'Use metric units.' };
    expect(route('Always answer with code first.', current)).toMatchObject({
      value: 'Use metric units.\nAlways answer with code first.',
    });
    const again = { ...empty, responsePreferences: 'Always answer with code first.' };
    expect(route('always answer with code first.', again)).toMatchObject({
      value: 'Always answer with code first.',
    });
  });
});
