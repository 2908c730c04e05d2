import { normaliseText } from '../retrieval/tokenize.ts';

/*
 * MM-PRO-4: only explicit agreement in the user's next message authorises a proposed change.
 * "Explicit" is read strictly: the message says yes and nothing else — a bare "yes", "agree",
 * "yes, save it", "同意", "好的，保存吧". A message that also asks or says something more ("yes,
 * but what about Berlin?") or any refusal or hedge is not agreement, and expires the proposal: a
 * wrong "no" costs the agent one more question, a wrong "yes" writes the user's profile.
 */

/** Words that say yes on their own. */
const ASSENT = new Set([
  'agree',
  'agreed',
  'yes',
  'yeah',
  'yep',
  'ok',
  'okay',
  'sure',
  'confirm',
  'confirmed',
  'approve',
  'approved',
  'correct',
  'right',
  'exactly',
]);
/** Words that may stand beside an assent without changing it ("yes, please save it"). */
const COMPANION = new Set([
  'i',
  'do',
  'please',
  'save',
  'it',
  'that',
  'this',
  'go',
  'ahead',
  'thanks',
  'thank',
  'you',
  'sounds',
  'good',
  'fine',
  'great',
  'is',
  'of',
  'course',
  'update',
  'store',
  'keep',
  'change',
  'set',
  'the',
  'profile',
  'field',
]);

/** Chinese: the message is made only of these pieces, and at least one of them assents. */
const HAN_PIECES =
  /^(?:同意|好的|好|可以|行|是的|是|对的|对|确认|没问题|嗯|请|就|帮我|麻烦|保存|更新|记下|记住|修改|改|存|设置|吧|啊|呀|了|一下|下来|这样)+$/u;
const HAN_ASSENT = /同意|好|可以|行|是|对|确认|没问题/u;

const NEGATIVE =
  /\b(?:no|not|don'?t|never|cancel|wait|stop|but|however|instead|rather)\b|不|别|没(?!问题)|等等|取消|但是|不过/u;

/** Whether `message` is the user's explicit agreement to the change just proposed. */
export function isExplicitAgreement(message: string): boolean {
  const text = normaliseText(message)
    .replace(/[.!?。！？~～…]+$/u, '')
    .trim();
  if (text === '' || NEGATIVE.test(text)) return false;
  if (/\p{Script=Han}/u.test(text)) {
    const han = text.replace(/[\s，,、。！!~～…]+/gu, '');
    return HAN_PIECES.test(han) && HAN_ASSENT.test(han);
  }
  const words = text
    .replace(/[,;:!.?'’"“”()]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length > 8) return false;
  return words.some((w) => ASSENT.has(w)) && words.every((w) => ASSENT.has(w) || COMPANION.has(w));
}
