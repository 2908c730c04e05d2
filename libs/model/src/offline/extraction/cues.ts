import type { EventType } from '../../extraction.schema.ts';

/**
 * Cue-word tables for the fields a model would judge: event type, scope and criticality.
 * English and Chinese side by side (MM-GEN-12); Chinese cues are substrings because Chinese
 * has no word boundaries. Order matters: the first matching type wins, most specific first.
 */
const TYPE_CUES: readonly (readonly [EventType, RegExp])[] = [
  [
    'cancellation',
    /\b(cancel(?:l?ed|s|ling)?|called off|scrapped|dropped the plan)\b|取消|作罢|不办了/iu,
  ],
  [
    'decision',
    /\b(decided|(?:i|we|they) decide|decides to|decision|chose|chosen|opted (?:for|to)|settled on|made up (?:my|our) mind|we'll go with|agreed to)\b|决定|确定了|选定|敲定|决策|拍板/iu,
  ],
  ['migration', /\b(migrat(?:e|ed|es|ing|ion)|ported)\b|迁移/iu],
  [
    'change',
    /\b(switch(?:ed|es|ing)? (?:to|from|over)|moved (?:to|from|into|out)|chang(?:ed|ing) (?:to|from|my|our)|replac(?:ed|ing)|no longer|not anymore|anymore|instead of|upgraded|downgraded|converted|became)\b|改用|换成|改成|换了|搬到|搬家|不再|变成|升级到/iu,
  ],
  [
    'release',
    /\b(releas(?:e|ed|es|ing)|launch(?:ed|es|ing)?|shipp?(?:ed|ing)|publish(?:ed|es|ing)|went live|go live|deploy(?:ed)? to production)\b|发布|上线|版本发布/iu,
  ],
  [
    'incident',
    /\b(broke|broken|fail(?:ed|s|ing|ure)|outage|crash(?:ed|es)?|went down|is down|bug|regression|accident|injur(?:ed|y)|got hurt|lost my)\b|故障|崩溃|宕机|失败|出错|报错|事故|受伤/iu,
  ],
  [
    'task_completed',
    /\b(finish(?:ed|es|ing)?|complet(?:e|ed|es|ing)|done with|passed|graduated|accomplished|wrapped up)\b|完成|搞定|通过了|毕业/iu,
  ],
  [
    'meeting',
    /\b(meet(?:ing|up|s)?|met|catch(?:ing)? up|caught up|interview(?:ed)?)\b|会议|开会|见面|见了|会面/iu,
  ],
  [
    'collaboration',
    /\b(work(?:ed|ing)? (?:together )?with|team(?:ed)? up|collaborat\w*|partner(?:ed|ing)? with|paired with)\b|合作|协作|一起做|配合/iu,
  ],
  [
    'plan',
    /\b(plan(?:s|ned|ning)?|will|going to|gonna|intend(?:s|ing)?|scheduled|about to)\b|'ll\b|计划|打算|准备|安排|将要|要去/iu,
  ],
];

export const FIRST_PERSON =
  /\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|we'll|we'd|our|ours|us)\b|我/iu;

export function eventTypeOf(sentence: string): EventType {
  const text = sentence.replace(/[’‘]/gu, "'");
  return TYPE_CUES.find(([, cue]) => cue.test(text))?.[0] ?? 'other';
}

/** Types strong enough to make a sentence an event without a first-person speaker. */
export const STRONG_TYPES: ReadonlySet<EventType> = new Set([
  'cancellation',
  'decision',
  'migration',
  'change',
  'release',
  'incident',
  'task_completed',
]);

const PROJECT =
  /\b(projects?|repo(?:sitory)?|codebase|monorepo|builds?|ci|cd|pipelines?|deploy(?:ment|ed|s)?|releases?|sprint|prototype|mvp|backend|frontend|api|server|database|schema|migration|dependenc(?:y|ies)|packages?|lockfile|installs?|branch|pull request|merge request|commit|staging|production|roadmap|milestone|test suite|(?:unit|integration|e2e|end-to-end) tests?|tests? (?:pass|fail)\w*|codes?|refactor\w*|v\d+(?:\.\d+)*|microservices?|queues?|cron|endpoints?|clusters?|dashboards?|config(?:uration)?|sdk|cli|docker|kubernetes|k8s|terraform|github|gitlab|npm|pnpm|yarn|typescript|javascript|python|golang|rust)\b|项目|仓库|代码|构建|发布|版本|上线|部署|接口|测试|需求|迭代|后端|前端|数据库|服务器|依赖|原型|里程碑/iu;

/** A request about the reply at hand: "keep this answer short", "align the arrows in this figure". */
const SESSION_REQUEST =
  /^(?:(?:ok(?:ay)?|so|now|and|also|then)[,\s]+)?(?:please[,\s]+)?(?:(?:can|could|would|will) you (?:please )?)?(?:keep|make|align|format|shorten|rewrite|reword|rephrase|translate|answer|reply|respond|write|add|remove|delete|put|move|rename|use|fix|change|adjust|resize|center|bold|summari[sz]e|list|number|convert|redo|simplify|split|merge|sort)\b|^(?:请|麻烦|帮我|把|给我)/iu;

/** Words that turn a one-off request into lasting guidance (MM-EVT-7). */
const LASTING =
  /\b(always|never|from now on|in (?:the )?future|every time|going forward|by default|whenever|each time)\b|以后|今后|总是|每次|一直|永远|默认/iu;

export function isSessionRequest(sentence: string): boolean {
  return SESSION_REQUEST.test(sentence.trim()) && !LASTING.test(sentence);
}

/** "Always …", "From now on, …" open lasting guidance before the imperative itself. */
const LEADING_LASTING =
  /^(?:(?:from now on|going forward|in (?:the )?future|by default|always|never|please)[,\s]+)+|^(?:以后|今后|每次|总是)[，,]?/iu;

export function isLastingGuidance(sentence: string): boolean {
  const text = sentence.trim();
  return LASTING.test(text) && SESSION_REQUEST.test(text.replace(LEADING_LASTING, ''));
}

/**
 * Session for a one-off request about the reply at hand; project for anything about the work;
 * user for personal facts and lasting guidance (MM-EVT-7).
 */
export function scopeOf(sentence: string, fromUser: boolean): 'user' | 'project' | 'session' {
  if (PROJECT.test(sentence)) return 'project';
  if (fromUser && isSessionRequest(sentence)) return 'session';
  return 'user';
}

const SAFETY =
  /\b(allerg\w*|anaphyla\w*|asthma|diabet\w*|epilep\w*|seizures?|heart condition|blood pressure|medication|insulin|epipen|pregnan\w*|intoleran\w*|celiac|can't eat|cannot eat|must not eat|unsafe|emergency contact)\b|过敏|哮喘|糖尿病|癫痫|心脏病|高血压|怀孕|不能吃|忌口|急救/iu;

const IDENTITY =
  /\b(my name is|call me|i'm called|i am called|i work (?:as|at|for|in)|my job|i live in|i'm from|i am from|i grew up in|i was born|years old|i moved to|i identify as|i'm (?:married|single|divorced|engaged|retired|pregnant|a (?:student|teacher|nurse|doctor|developer|engineer|designer|lawyer|mom|dad|parent|writer|artist|musician|manager))|i am (?:married|single|divorced|retired|a (?:student|teacher|nurse|doctor|developer|engineer|designer|lawyer|parent|writer|artist))|(?:trans|transgender|nonbinary|non-binary|gay|lesbian|bisexual|queer)\b|my (?:wife|husband|partner|kids|children|son|daughter|mom|dad|mother|father|parents|brother|sister|family)|i have (?:a|an|one|two|three|four|\d+) (?:kids?|children|sons?|daughters?|brothers?|sisters?|siblings))\b|我叫|我的名字|我是(?:一名|一个)?[^，。,.]{0,6}(?:人|老师|学生|工程师|医生|护士|程序员|设计师|律师)|我住在|我来自|我出生|我.{0,3}岁|我在[^，。,.]{1,12}(?:工作|上班|上学)|搬到|我(?:的)?(?:老婆|老公|妻子|丈夫|孩子|儿子|女儿|父母|爸爸|妈妈|家人)/iu;

const PREFERENCE =
  /\b((?:i|we) (?:really |absolutely |totally )?(?:like|love|prefer|enjoy|hate|dislike|adore|can't stand)|(?:i'm|i am) (?:a (?:big |huge )?fan of|into|keen on)|favou?rite|would rather|i'd rather)\b|喜欢|偏好|偏爱|最爱|讨厌|更愿意|爱吃|爱喝/iu;

export type Criticality = 'routine' | 'preference' | 'identity' | 'safety';

/** Safety outranks identity outranks preference: the floor is set by the weightiest reading. */
export function criticalityOf(
  sentence: string,
  scope: 'user' | 'project' | 'session',
): Criticality {
  const text = sentence.replace(/[’‘]/gu, "'");
  if (scope === 'session') return 'routine';
  if (SAFETY.test(text)) return 'safety';
  if (scope === 'user' && IDENTITY.test(text)) return 'identity';
  if (PREFERENCE.test(text) || isLastingGuidance(text)) return 'preference';
  return 'routine';
}

export function isPreference(sentence: string): boolean {
  return PREFERENCE.test(sentence.replace(/[’‘]/gu, "'"));
}

export function isIdentity(sentence: string): boolean {
  return IDENTITY.test(sentence.replace(/[’‘]/gu, "'"));
}

export function isSafety(sentence: string): boolean {
  return SAFETY.test(sentence);
}
