import { normaliseText } from '../retrieval/tokenize.ts';
import type { ProfileField, ProfileValues } from './profile-fields.ts';

/*
 * MM-REM-6: "remember" does not choose where a statement goes. A lasting personal setting goes
 * to the profile ("from now on answer in Chinese"), a fact to recall becomes a memory event
 * ("this project switched to pnpm"), a one-off request stays in the conversation ("keep this
 * answer short"). The rules read the statement's form, in English and Chinese (MM-GEN-12): a
 * one-off marker ("this answer", 这次) without a lasting one keeps a request in the conversation;
 * the profile takes what names a field's subject (a language to answer in, how to address the
 * user, where they live or are now, how answers should look, a standing "always/never/from now
 * on"); everything else is a fact. A trip in the past or the future names no present place, so
 * it stays an event and changes no city (MM-PRO-3).
 */

export type RememberRoute =
  | { destination: 'profile'; field: ProfileField; value: string; rule: string }
  | { destination: 'event'; rule: string }
  | { destination: 'conversation'; rule: string };

const LANGUAGES =
  'english|chinese|mandarin|cantonese|simplified chinese|traditional chinese|japanese|korean|french|german|spanish|italian|portuguese|russian|arabic|dutch|swedish|hindi|vietnamese|thai|indonesian|turkish|polish|ukrainian|greek|hebrew';
const HAN_LANGUAGES =
  '中文|汉语|普通话|简体中文|繁体中文|粤语|英文|英语|日文|日语|韩文|韩语|法文|法语|德文|德语|西班牙语|俄语|意大利语|葡萄牙语|阿拉伯语';

const LASTING =
  /\b(?:from now on|going forward|from here on|in (?:the )?future|always|never|every time|each time|by default|whenever|permanently|for good|all (?:of )?your (?:answers|replies|responses))\b|以后|今后|从现在起|从今以后|往后|始终|总是|永远|一直|每次|默认/u;
const ONE_OFF =
  /\b(?:this|that|the next|your next) (?:answer|reply|response|message|question|one|time)\b|\b(?:just )?(?:this|for) once\b|\bfor now\b|\bright now\b|这次|本次|这一次|这回|此次|这条|这个回答|暂时/u;
/** An imperative at the start of the statement or of a clause ("from now on, never use …"). */
const REQUEST =
  /(?:^|[,;:]\s*)(?:(?:from now on|going forward|in (?:the )?future|by default|please|always|never|can you|could you|would you),?\s+)*(?:don['’]?t |do not )?(?:keep|make|answer|reply|respond|write|give|use|be|show|explain|list|skip|add|avoid|stop|start|format|put|translate|call|refer|address|mention|include|cite|quote|check|double-check|verify|confirm|ask|remind|warn|tell|suggest|summari[sz]e|spell|round|convert|assume|link|end|begin)\b|请|帮我|回答|回复|简短|详细|一点|用|写|说/u;

/**
 * A statement that opens with a lasting marker and goes on with an imperative ("Always
 * double-check the dates", "From now on, greet me in the morning"): whatever the verb, it is an
 * instruction. A subject in its place ("From now on we deploy …", "Always, Atlas …") makes it a
 * statement of fact.
 */
const LASTING_OPENING =
  /^(?:please,?\s+)?(?:from now on|going forward|from here on|in (?:the )?future|by default|always|never)[,:]?\s+(?:please,?\s+)?(?:(?:always|never|also)\s+)?(?:(?:don['’]?t|do not)\s+)?(\p{L}[\p{L}'’-]*)/iu;
const SUBJECTS = new Set(
  'i we you he she they it the a an my our your his her their its this that these those there here everyone everybody nobody someone people each every all some most many'.split(
    ' ',
  ),
);
function opensWithLastingImperative(text: string): boolean {
  const word = LASTING_OPENING.exec(text)?.[1];
  return word !== undefined && !/^\p{Lu}/u.test(word) && !SUBJECTS.has(word.toLowerCase());
}

/** A name as captured: its first word, then further capitalised words, at most four. */
function cleanName(captured: string): string {
  const words = captured
    .replace(/[.,;:!?。，；！？、].*$/u, '')
    .trim()
    .split(/\s+/);
  const kept = [words[0] ?? ''];
  for (const w of words.slice(1, 4)) {
    if (!/^\p{Lu}/u.test(w)) break;
    kept.push(w);
  }
  return kept.join(' ').trim();
}
const cleanHan = (s: string) =>
  s.replace(/(?:吧|了|啊|哦|呢|就好|就行|以后|出差|旅游|工作)+$/u, '').trim();

interface FieldRule {
  field: ProfileField;
  /** Full-value fields take the captured value; prose fields the whole statement, appended. */
  take: 'capture' | 'statement';
  patterns: RegExp[];
  name: string;
}

const PLACE = "([\\p{Lu}][\\p{L}'’. -]{0,60}?)";
const HAN_PLACE = '([\\p{Script=Han}]{2,12})';

const RULES: FieldRule[] = [
  {
    field: 'reasoningLanguage',
    take: 'capture',
    name: 'a language to reason in',
    patterns: [
      new RegExp(`\\b(?:think|reason|reasoning|thoughts?)\\b[^.]*?\\bin (${LANGUAGES})\\b`, 'iu'),
      new RegExp(
        `用(${HAN_LANGUAGES})(?:思考|推理)|(?:思考|推理)(?:过程)?(?:都)?用(${HAN_LANGUAGES})`,
        'u',
      ),
    ],
  },
  {
    field: 'preferredLanguage',
    take: 'capture',
    name: 'a language to answer in',
    patterns: [
      new RegExp(
        `\\b(?:answer|answers|reply|replies|respond|responses?|write|talk|speak)\\b[^.]*?\\bin (${LANGUAGES})\\b`,
        'iu',
      ),
      new RegExp(`用(${HAN_LANGUAGES})(?:来)?(?:回答|回复|交流|答复|和我说|跟我说|说话|写)`, 'u'),
    ],
  },
  {
    field: 'assistantPreferredName',
    take: 'capture',
    name: "the assistant's name",
    patterns: [
      /\b(?:your name (?:is|will be)|i(?:'ll| will) call you|call yourself|you(?:'re| are) called)\s+([\p{L}][\p{L}'’ -]{0,40})/iu,
      new RegExp(`(?:你(?:的名字)?叫|我(?:就)?叫你|称呼你为?)([\\p{Script=Han}A-Za-z]{1,12})`, 'u'),
    ],
  },
  {
    field: 'userPreferredName',
    take: 'capture',
    name: 'how to address the user',
    patterns: [
      /\b(?:call me|address me as|refer to me as|my name is)\s+([\p{L}][\p{L}'’ -]{0,40})/iu,
      new RegExp(`(?:叫我|称呼我为?|喊我|我的名字是)([\\p{Script=Han}A-Za-z]{1,12})`, 'u'),
    ],
  },
  {
    field: 'currentCity',
    take: 'capture',
    name: 'where the user is now',
    patterns: [
      new RegExp(
        `\\bI(?:'m| am) (?:currently|now|staying) (?:in|at) ${PLACE}(?=[.,;!]|$| for| this| on| until)`,
        'u',
      ),
      new RegExp(
        `\\bI(?:'m| am) (?:on a (?:business )?trip|travell?ing) (?:in|to) ${PLACE}(?=[.,;!]|$| for| this| right| at the moment)`,
        'u',
      ),
      new RegExp(
        `\\bI(?:'m| am) in ${PLACE} (?:now|right now|this week|these days|at the moment|for (?:a|the) (?:week|trip|while))`,
        'u',
      ),
      new RegExp(`我(?:现在|目前|这几天|最近|正)(?:人)?在${HAN_PLACE}`, 'u'),
    ],
  },
  {
    field: 'defaultLocation',
    take: 'capture',
    name: 'the place to use when a task names none',
    patterns: [
      new RegExp(`\\b(?:[Uu]se|[Ss]et) ${PLACE} as (?:my |the )?default location`, 'u'),
      new RegExp(`\\b[Dd]efault location (?:is|to|should be|:) ?${PLACE}(?=[.,;!]|$)`, 'u'),
      new RegExp(`默认(?:地点|位置|城市)(?:是|为|设为|设成|用)${HAN_PLACE}`, 'u'),
    ],
  },
  {
    field: 'homeCity',
    take: 'capture',
    name: "the user's home city",
    patterns: [
      new RegExp(`\\bI (?:live|reside) in ${PLACE}(?=[.,;!]|$| with| since| and)`, 'u'),
      new RegExp(`\\b[Mm]y home(?:town| city)? is (?:in )?${PLACE}(?=[.,;!]|$)`, 'u'),
      new RegExp(`\\bI(?:'m| am) based in ${PLACE}(?=[.,;!]|$)`, 'u'),
      new RegExp(`我(?:常)?住在${HAN_PLACE}|我(?:的)?家在${HAN_PLACE}|我常住${HAN_PLACE}`, 'u'),
    ],
  },
  {
    field: 'longTermGoals',
    take: 'statement',
    name: 'a long-term goal',
    patterns: [
      /\bmy (?:long[- ]term |main |big )?goal is\b|\bI(?:'m| am) working towards\b/iu,
      /我的(?:长期|主要)?目标是/u,
    ],
  },
  {
    field: 'userBackground',
    take: 'statement',
    name: "the user's background",
    patterns: [
      /\bI work as an?\b|\bmy background is\b|\bI(?:'m| am) an? (?:[\p{L}-]+ ){0,3}(?:engineer|developer|programmer|designer|doctor|teacher|student|researcher|scientist|manager|lawyer|writer|nurse|analyst|consultant|architect|accountant)\b/iu,
      /我是一名|我的职业是|我从事|我的背景是/u,
    ],
  },
  {
    field: 'responsePreferences',
    take: 'statement',
    name: 'how answers should look',
    patterns: [
      /\b(?:answers?|repl(?:y|ies)|responses?|respond|explanations?)\b.*\b(?:short|brief|concise|detailed|long|bullet|code first|formal|casual|tables?|examples?|step[- ]by[- ]step|emoji)|\bI (?:prefer|like|want) (?:short|brief|concise|detailed|long|bullet|code|formal|casual|tables|examples|step)/iu,
      /(?:回答|回复|答复).*(?:简短|简洁|详细|要点|代码|正式|口语|列表|表格|例子)|(?:简短|简洁|详细)(?:一点|一些)?(?:地)?(?:回答|回复)/u,
    ],
  },
];

/** Where one remembered statement belongs, with the value a profile field would take. */
export function routeRemember(content: string, current: ProfileValues): RememberRoute {
  const text = content.replace(/\s+/g, ' ').trim();
  const lower = normaliseText(text);
  const lasting = LASTING.test(lower);
  if (!lasting && ONE_OFF.test(lower) && REQUEST.test(lower)) {
    return { destination: 'conversation', rule: 'a request for this answer only' };
  }
  for (const rule of RULES) {
    for (const pattern of rule.patterns) {
      const match = pattern.exec(text);
      if (!match) continue;
      if (rule.take === 'statement') return profile(rule, appended(current[rule.field], text));
      const captured = match.slice(1).find((g) => g !== undefined) ?? '';
      const value = /\p{Script=Han}/u.test(captured) ? cleanHan(captured) : cleanName(captured);
      if (value !== '') return profile(rule, value);
    }
  }
  if (lasting && (REQUEST.test(lower) || opensWithLastingImperative(text))) {
    return profile(
      { field: 'standingInstructions', name: 'a lasting instruction' },
      appended(current.standingInstructions, text),
    );
  }
  return { destination: 'event', rule: 'a fact to recall' };
}

function profile(rule: Pick<FieldRule, 'field' | 'name'>, value: string): RememberRoute {
  return { destination: 'profile', field: rule.field, value, rule: rule.name };
}

/** A prose field gains the statement as a new line, unless it already holds it. */
function appended(current: string, statement: string): string {
  if (current === '') return statement;
  const lines = current.split('\n').map((l) => normaliseText(l));
  return lines.includes(normaliseText(statement)) ? current : `${current}\n${statement}`;
}
