import { describe, expect, it } from 'vitest';
import { isExplicitAgreement } from './consent.ts';

describe('isExplicitAgreement (MM-PRO-4)', () => {
  it.each([
    'agree',
    'I agree.',
    'Agreed!',
    'yes',
    'Yes, save it',
    'yes please',
    'OK, go ahead',
    'Sure, update the profile.',
    '同意',
    '同意。',
    '好的，保存吧',
    '可以',
    '是的，帮我保存',
    '没问题',
  ])('%s → agreement', (message) => {
    expect(isExplicitAgreement(message)).toBe(true);
  });

  it.each([
    '',
    'no',
    "don't",
    'Yes, but in Berlin',
    'What is the weather in Harbin tomorrow?',
    'Not now',
    'maybe later',
    'Thanks',
    'Right, let us talk about dinner plans instead',
    '不同意',
    '不用了',
    '先别保存',
    '等等',
    '好的，不过先别改',
    '今天天气怎么样？',
  ])('%s → not agreement', (message) => {
    expect(isExplicitAgreement(message)).toBe(false);
  });
});
