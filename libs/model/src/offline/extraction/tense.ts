/**
 * Grammatical time of a sentence: did it happen, is it planned, still going on, or called off?
 * Only cue words, no parser: it decides `temporal.status` when the sentence has no resolvable
 * time, and which way a bare weekday or month ("on Saturday", "in March") points.
 */
export type Tense = 'cancelled' | 'future' | 'ongoing' | 'past' | 'none';

const CANCELLED =
  /\b(cancel(?:l?ed|s|ling)?|called off|calling off|scrapped|dropped the plan|no longer (?:going|happening|planned))\b|取消|作罢|不办了|泡汤/iu;

const FUTURE =
  /\b(will|shall|won't|going to|gonna|plan(?:s|ning)? (?:to|on)|intend(?:s|ing)? to|about to|aim(?:s|ing)? to|hop(?:e|ing) to|looking forward to|upcoming|scheduled|next (?:week|month|year|time|weekend|spring|summer|fall|autumn|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|tonight|soon)\b|(?:i|we|you|they|he|she|it)'ll\b|将要|将会|即将|打算|计划|准备|预计|明天|明年|后天|下周|下个?月|下星期|我要|我们要|要去|会去/iu;

/** -ing words after "is/are" that describe, not progress ("this is amazing", "is something"). */
const NOT_PROGRESSIVE =
  '(?!(?:going to|amazing|interesting|exciting|boring|inspiring|something|nothing|anything|everything|thing|morning|evening|refreshing|rewarding|relaxing|touching|charming|surprising|stunning|annoying|frustrating|overwhelming|encouraging|promising|challenging|fascinating|heartwarming|worrying|confusing|embarrassing|satisfying|tiring|terrifying)\\b)';

const ONGOING = new RegExp(
  [
    String.raw`\b(still|currently|ongoing|in progress|pending|not yet|yet to|these days|nowadays|so far)\b`,
    String.raw`\b(?:am|is|are)\s+${NOT_PROGRESSIVE}\w+ing\b`,
    String.raw`\b(?:i'm|we're|you're|they're)\s+${NOT_PROGRESSIVE}\w+ing\b`,
    String.raw`\b(?:has|have|'ve) been \w+ing\b`,
    '正在|还在|仍在|仍然|依然|尚未|还没|目前|待定|待验证',
  ].join('|'),
  'iu',
);

const IRREGULAR_PAST = new Set(
  `went gave got made took saw met ran won lost bought began came did had was were found felt
  left told said wrote sold built broke drove flew ate drank sang taught thought brought caught
  kept slept spent sent held became chose forgot grew knew led paid rode rose shook spoke stood
  swam threw understood woke wore hung fell fought hid lent meant sat shot
  stole struck swore tore wound`.split(/\s+/u),
);

/** Words ending in -ed that are not past tense. */
const NOT_PAST = new Set(
  `need needed feed seed speed bed red shed indeed bleed breed proceed succeed exceed hundred
  embed weed deed greed wed sled naked wicked sacred beloved kindred`.split(/\s+/u),
);

/** "-ed" after these is an adjective or a passive ("to be verified", "so excited"). */
const ADJECTIVAL =
  /^(?:am|is|are|be|being|been|'m|'re|so|very|too|really|feel|feeling|get|getting|look|looks|seem|seems|quite|pretty)$/iu;

const PERFECT =
  /\b(?:have|has|had|'ve|'d)\s+(?:just\s+|already\s+|finally\s+|never\s+)?\w+(?:ed|en|wn|ne|un|ught|ade|id|ot|ept|ent|old|elt|ound)\b/iu;

const ZH_PAST =
  /了(?!解|不起|吧)|已经|刚刚|曾经|(?:去|吃|见|看|做|玩|来|到|听|用|学|住)过|昨天|昨晚|前天|去年|上周|上个月/u;

export function detectTense(text: string): Tense {
  const sentence = text.replace(/[’‘]/gu, "'");
  if (CANCELLED.test(sentence)) return 'cancelled';
  if (FUTURE.test(sentence)) return 'future';
  if (ONGOING.test(sentence)) return 'ongoing';
  if (isPast(sentence)) return 'past';
  return 'none';
}

function isPast(sentence: string): boolean {
  if (ZH_PAST.test(sentence) || PERFECT.test(sentence)) return true;
  const words = sentence.toLowerCase().match(/[a-z']+/gu) ?? [];
  return words.some((word, i) => {
    const before = words[i - 1] ?? '';
    if (IRREGULAR_PAST.has(word)) return true;
    return (
      /^[a-z]{2,}ed$/u.test(word) &&
      !NOT_PAST.has(word) &&
      !ADJECTIVAL.test(before) &&
      !before.endsWith("'m") &&
      !before.endsWith("'re")
    );
  });
}

/**
 * Which way a date without a year points, which can differ from the grammar of the sentence:
 * "we moved the beta deadline to January 10" is past tense about a date still to come. Words
 * that set a date ahead (a deadline, "until", a reschedule "to <date>", "next") point forward;
 * otherwise the sentence's tense decides (past → the last occurrence, future → the next).
 */
const FORWARD =
  /\b(?:deadline|due|until|till|upcoming|scheduled|rescheduled|postponed|pushed (?:back|out)?|delayed|next|launch(?:es|ing)? on|set for)\b|\b(?:moved|pushed|shifted|bumped|brought|changed|reset)\b[^.!?]{0,40}\b(?:to|until)\s+(?:the\s+)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)|截止|之前|以前|推迟|延期|改到|提前到|定在|直到|下周|下个?月|明年/iu;

export function dateDirection(text: string, tense: Tense): Tense {
  if (tense === 'cancelled') return tense;
  // "My cousin is getting married on June 14": a progressive with a date is an arrangement.
  if (tense === 'ongoing') return 'future';
  return FORWARD.test(text.replace(/[’‘]/gu, "'")) ? 'future' : tense;
}
