import { describe, expect, it } from 'vitest';
import { criticalityOf, eventTypeOf, scopeOf } from './cues.ts';
import { detectTense } from './tense.ts';

describe('event type cues (MM-EVT-6)', () => {
  it.each([
    ['We decided to switch the whole project to pnpm.', 'decision'],
    ['我们决定下周三发布2.0版本', 'decision'],
    ['We switched to pnpm last month.', 'change'],
    ['我搬到了上海', 'change'],
    ['We migrated the database to Postgres.', 'migration'],
    ['We released version 2.1 on Friday.', 'release'],
    ['新版本昨天发布了', 'release'],
    ['I finally finished my first screenplay.', 'task_completed'],
    ['The build broke after the upgrade.', 'incident'],
    ['The trip was cancelled because of the storm.', 'cancellation'],
    ['会议取消了', 'cancellation'],
    ['I met Jon at the conference.', 'meeting'],
    ['I worked with Ana on the poster.', 'collaboration'],
    ["I'm going to learn the violin.", 'plan'],
    ['I adopted a dog.', 'other'],
    // Describing how something works is not a decision.
    ['The scheduler can decide whether another attempt helps.', 'other'],
  ])('%s → %s', (sentence, type) => {
    expect(eventTypeOf(sentence)).toBe(type);
  });
});

describe('scope (MM-EVT-7)', () => {
  it.each([
    ['Keep this answer short.', true, 'session'],
    ['Could you align the arrows in this figure?', true, 'session'],
    ['From now on, always answer in Chinese.', true, 'user'],
    ['CI still has to be verified after the migration.', true, 'project'],
    ['We finish the prototype next week.', true, 'project'],
    ['我们决定下周三发布2.0版本', true, 'project'],
    ['I gave a talk at a school last week.', true, 'user'],
    // Only the user makes requests of the assistant.
    ['Keep this answer short.', false, 'user'],
  ] as const)('%s (user: %s) → %s', (sentence, fromUser, scope) => {
    expect(scopeOf(sentence, fromUser)).toBe(scope);
  });
});

describe('criticality (MM-EVT-8)', () => {
  it.each([
    ['I prefer strict dependency resolution.', 'user', 'preference'],
    ['我喜欢喝咖啡', 'user', 'preference'],
    ['I am allergic to peanuts.', 'user', 'safety'],
    ['我对花生过敏', 'user', 'safety'],
    ['My name is Ana and I work as a nurse.', 'user', 'identity'],
    ['I moved to Boston last year.', 'user', 'identity'],
    ['我叫王芳，在腾讯工作', 'user', 'identity'],
    ['I adopted a dog.', 'user', 'routine'],
    ['Always answer in bullet points.', 'user', 'preference'],
    // A one-off request is never a lasting taste.
    ['I love it, keep this answer short.', 'session', 'routine'],
  ] as const)('%s → %s', (sentence, scope, criticality) => {
    expect(criticalityOf(sentence, scope)).toBe(criticality);
  });
});

describe('tense', () => {
  it.each([
    ['I gave a talk at a school last week.', 'past'],
    ['We switched to pnpm; installs are faster.', 'past'],
    ['I’ve adopted a dog.', 'past'],
    ['CI still has to be verified after the migration.', 'ongoing'],
    ["I'm training for a marathon.", 'ongoing'],
    ['We finish the prototype next week.', 'future'],
    ["I'm going to move to Boston.", 'future'],
    ['我们打算明年结婚', 'future'],
    ['The concert was cancelled.', 'cancelled'],
    ['我去年夏天去了北京', 'past'],
    ['This is amazing.', 'none'],
    ['I am so excited.', 'none'],
    ['我对花生过敏', 'none'],
  ])('%s → %s', (sentence, tense) => {
    expect(detectTense(sentence)).toBe(tense);
  });
});
