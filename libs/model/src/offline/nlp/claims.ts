import type { Clause, Phrase, SentenceAnalysis } from './analysis.ts';

/**
 * Claims: what a sentence states about a subject, as (subject, attribute, value), read from
 * the clauses of the NLP analysis. They are what makes a statement comparable with an earlier
 * one (the same attribute of the same subject: agreement, replacement or contradiction), and
 * what the graph turns into facts and edges. One table serves both languages: the Chinese
 * clause reader maps its verbs to the same roots.
 */
export type Attribute =
  | 'diet'
  | 'location'
  | 'role'
  | 'employer'
  | 'owner'
  | 'covers_for'
  | 'state'
  | 'date'
  | 'tool'
  | 'likes'
  | 'member_of';

/** Attributes a subject has one value of at a time: a new value replaces the old one. */
export const SINGLE_VALUED: ReadonlySet<Attribute> = new Set([
  'diet',
  'location',
  'role',
  'employer',
  'owner',
  'covers_for',
  'state',
  'date',
]);

export interface Claim {
  /** The subject as named (a person, "we", a thing such as "beta deadline" or "infra"). */
  subject: string;
  subjectKind: 'person' | 'group' | 'thing';
  attribute: Attribute;
  /** As written ("pescatarian", "Lisbon", "January 10"). */
  value: string;
  valueKind: 'person' | 'place' | 'organization' | 'tool' | 'thing' | 'date';
  negated: boolean;
  /** Said as a change ("now", "no longer", "switched", "moved"): a replacement, not a clash. */
  change: boolean;
  /** "until December 8": when the value stops holding, as written. */
  until?: string;
}

/** Who "I", "we" and "she" are in this sentence. */
export interface ClaimContext {
  speaker?: string;
  /** The person last named before this sentence in the block (pronoun antecedent). */
  lastPerson?: string;
}

const DIET =
  /^(?:vegetarian|vegan|pescatarian|pescetarian|flexitarian|omnivore|carnivore|keto|paleo|gluten-free|lactose-free|dairy-free|halal|kosher|素食者?|纯素(?:食者)?|吃素)$/iu;
const DIET_WORD =
  /\b(vegetarian|vegan|pescatarian|pescetarian|flexitarian|omnivore|carnivore|keto|paleo|gluten-free|dairy-free|halal|kosher)\b|(纯素|素食|吃素)/iu;
const ROLE =
  /\b(?:lead|leader|manager|engineer|developer|designer|director|head|owner|architect|analyst|scientist|researcher|intern|founder|ceo|cto|cfo|coo|vp|president|chair|coordinator|administrator|admin|maintainer|on-call|oncall|pm|teacher|nurse|doctor|student|consultant|specialist|officer|captain|coach|editor|writer|artist|counselor|counsellor)s?\b|工程师|经理|负责人|组长|主管|总监|设计师|产品经理|架构师|老师|学生|实习生|创始人/iu;
const STATE =
  /^(?:on )?(?:(?:a |an )?(?:vacation|holiday|holidays|leave|sick leave|parental leave|maternity leave|paternity leave|sabbatical|business trip|trip|break)|out sick|sick|ill|away|off|out of office|ooo|休假|请假|出差)$/iu;
const STATE_AFTER = /^(?:out sick|sick|ill|away|off sick|out of (?:the )?office)\b/iu;
const PLAN_THING =
  /\b(deadline|launch|release|beta|alpha|demo|meeting|review|due date|go-live|cutover|kickoff|kick-off|offsite|wedding|trip|interview|exam|appointment|party|conference|presentation|rollout|migration|freeze|sprint)\b|截止日期|截止|上线|发布|会议|评审|演示|婚礼|面试|考试|旅行/iu;
const TEAM =
  /\b(?:team|squad|group|club|committee|band|crew|guild|department|org)\b|团队|小组|组$|部门/iu;
const CHANGE =
  /\b(?:now|anymore|any more|no longer|switched|switching|moved|changed|instead|these days|from now on|became|become|went|turned|started|stopped|quit|postponed|pushed|rescheduled|delayed|moved)\b|现在|不再|改|换|搬|推迟|延期|提前|开始|已经/iu;

const OWN_VERBS = new Set([
  'handle',
  'own',
  'run',
  'lead',
  'manage',
  'maintain',
  'cover',
  'take over',
  'take',
  'oversee',
  'head',
]);
const COVER_VERBS = new Set(['cover', 'fill', 'stand', 'substitute', 'sub', 'cover for']);
const LIVE_VERBS = new Set(['live', 'move', 'relocate', 'settle', 'base', 'stay']);
const USE_VERBS = new Set(['use', 'switch', 'migrate', 'adopt', 'move', 'choose', 'pick']);
const LIKE_VERBS = new Set(['like', 'love', 'enjoy', 'prefer', 'adore', 'hate', 'dislike']);
const DATE_VERBS = new Set([
  'move',
  'push',
  'postpone',
  'reschedule',
  'delay',
  'set',
  'schedule',
  'be',
  'plan',
  'bring',
  'shift',
  'fix',
]);

const SELF = /^(?:i|me|myself|i'm|我)$/iu;
const GROUP = /^(?:we|us|our team|the team|我们|咱们|大家|团队)$/iu;
const THIRD = /^(?:he|she|they|him|her|他|她|他们|她们)$/iu;
const POSSESSIVE_SELF = /^(?:my|我的)\s*/iu;

/**
 * Words without which no row of the claim table can match: a regex test that spares the
 * tagger most sentences (it is the expensive step). It may let through sentences that state
 * nothing, never the other way round.
 */
const CLAIM_CUE = new RegExp(
  [
    String.raw`\b(?:liv(?:e|es|ed|ing)|mov(?:e|es|ed|ing)|relocat\w*|settl\w*|based|stay\w*|vegetarian|vegan|pescatarian|pescetarian|flexitarian|omnivore|carnivore|keto|paleo|gluten-free|dairy-free|halal|kosher)\b`,
    String.raw`\b(?:become|became|becomes|promot\w*|work(?:s|ed|ing)?|join\w*|team|squad|group|club|committee|department|cover\w*|fill\w* in|stand\w* in|substitut\w*|handl\w*|own\w*|run\w*|ran|lead\w*|led|manag\w*|maintain\w*|tak\w* over|took over|oversee\w*|head\w*|responsible|in charge)\b`,
    String.raw`\b(?:vacation|leave|holidays?|sick|ill|away|off|office|sabbatical|trip|break|deadline|launch\w*|release\w*|beta|alpha|demo|meeting|review|due|go-live|cutover|kick-?off|offsite|wedding|interview|exam|appointment|party|conference|presentation|rollout|migration|freeze|sprint|schedul\w*|postpon\w*|push\w*|delay\w*|resched\w*)\b`,
    String.raw`\b(?:us(?:e|es|ed|ing)|switch\w*|migrat\w*|adopt\w*|chose|choose|picked|lik(?:e|es|ed)|lov(?:e|es|ed)|enjoy\w*|prefer\w*|ador\w*|hat(?:e|es|ed)|dislik\w*)\b`,
    String.raw`\b(?:lead|leader|manager|engineer|developer|designer|director|head|owner|architect|analyst|scientist|researcher|intern|founder|ceo|cto|cfo|vp|president|coordinator|administrator|maintainer|teacher|nurse|doctor|student|consultant|specialist|officer|coach|editor|writer|artist|counsel+or)s?\b`,
    '负责|接手|接管|主管|代替|顶替|替|住在|搬|定居|改用|换成|迁移|使用|采用|担任|成为|升职|加入|喜欢|爱吃|讨厌|吃素|素食|休假|请假|出差|推迟|延期|提前|改到|定在|截止|上线|发布|是',
  ].join('|'),
  'iu',
);

export function mayStateClaim(text: string): boolean {
  return CLAIM_CUE.test(text);
}

export function claimsOf(analysis: SentenceAnalysis, context: ClaimContext): Claim[] {
  const out: Claim[] = [];
  const change = CHANGE.test(analysis.text);
  // A pronoun stands for the last person named before it, in this sentence or the block.
  const named = analysis.entities.filter((e) => e.type === 'person').map((e) => e.text);
  let lastSubject: Subject | null = null;
  for (const clause of analysis.clauses) {
    // A plan or a wish states nothing yet (MM-GRF-3); the sentence may still be an event.
    if (clause.hedged) continue;
    const antecedent = named.filter((n) => n !== lastSubject?.name).at(-1) ?? context.lastPerson;
    const subject: Subject | null =
      subjectOf(clause.subject, {
        ...context,
        ...(antecedent ? { lastPerson: antecedent } : {}),
      }) ?? lastSubject;
    if (!subject) continue;
    lastSubject = subject;
    // An object pronoun ("covers for her") is someone other than the clause's subject.
    const other = named.filter((n) => n !== subject.name).at(-1) ?? context.lastPerson;
    for (const claim of clauseClaims(clause, subject, change, other)) out.push(claim);
  }
  return uniqueClaims(out);
}

interface Subject {
  name: string;
  kind: Claim['subjectKind'];
}

function subjectOf(phrase: Phrase | undefined, context: ClaimContext): Subject | null {
  if (!phrase) return null;
  const text = phrase.text.trim();
  if (SELF.test(text)) return context.speaker ? { name: context.speaker, kind: 'person' } : null;
  if (GROUP.test(text)) return { name: 'we', kind: 'group' };
  if (THIRD.test(text)) {
    return context.lastPerson ? { name: context.lastPerson, kind: 'person' } : null;
  }
  if (phrase.pronoun) return null;
  if (phrase.entity?.type === 'person') return { name: phrase.entity.text, kind: 'person' };
  const own = POSSESSIVE_SELF.exec(text);
  if (own && context.speaker) {
    return { name: `${context.speaker}'s ${text.slice(own[0].length)}`, kind: 'person' };
  }
  if (/^\p{Lu}\p{Ll}+(?:\s\p{Lu}\p{Ll}+)?$/u.test(text) && !phrase.entity) {
    return { name: text, kind: 'person' };
  }
  return { name: phrase.bare, kind: 'thing' };
}

function clauseClaims(
  clause: Clause,
  subject: Subject,
  change: boolean,
  antecedent: string | undefined,
): Claim[] {
  const out: Claim[] = [];
  const base = { negated: clause.negated, change };
  const object = clause.object;
  const objectText = object?.bare ?? '';
  const complement = (...preps: string[]) =>
    clause.complements.find((c) => preps.includes(c.prep))?.phrase;
  const until = complement('until', 'till', '直到')?.text;
  const person = subject.kind === 'person';

  // Diet: "I'm pescatarian now", "she went vegan", "我吃素".
  const diet = dietOf(clause);
  if (
    person &&
    diet &&
    ['be', 'become', 'go', 'turn', 'stay', 'be vegetarian', 'eat'].includes(clause.verb)
  ) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'diet',
      value: diet,
      valueKind: 'thing',
    });
  }
  // Where someone lives: "moved to Lisbon", "lives in Berlin", "住在上海".
  const place = complement('in', 'to');
  if (person && LIVE_VERBS.has(clause.verb) && place && isPlace(place)) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'location',
      value: place.entity?.text ?? place.bare,
      valueKind: 'place',
      change: change || clause.verb === 'move',
    });
  }
  // Roles: "Dana became the new tech lead", "I work as a nurse", "她担任组长".
  const roleText = clause.verb === 'work' ? complement('as')?.bare : objectText;
  if (
    person &&
    roleText &&
    ['be', 'become', 'work', 'promote'].includes(clause.verb) &&
    ROLE.test(roleText) &&
    !DIET.test(roleText)
  ) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'role',
      value: roleText,
      valueKind: 'thing',
    });
  }
  // Employer and teams: "works at Acme", "joined the platform team".
  const org = complement('at', 'for');
  if (person && clause.verb === 'work' && org && org.entity?.type !== 'place') {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'employer',
      value: org.entity?.text ?? org.bare,
      valueKind: 'organization',
    });
  }
  if (person && clause.verb === 'join' && object) {
    const team = TEAM.test(objectText);
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: team ? 'member_of' : 'employer',
      value: object.entity?.text ?? objectText,
      valueKind: 'organization',
    });
  }
  const onTeam = complement('on', 'in');
  if (
    person &&
    clause.verb === 'be' &&
    onTeam &&
    TEAM.test(onTeam.bare) &&
    !STATE.test(onTeam.text)
  ) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'member_of',
      value: onTeam.bare,
      valueKind: 'organization',
    });
  }
  // Hand-overs: "Priya covers for Tom", "Priya代替Tom".
  const stand = complement('for');
  // "…, so Marco covers for her": the pronoun is the person named before it.
  const standIn = stand?.pronoun ? antecedent : (stand?.entity?.text ?? stand?.text);
  if (person && COVER_VERBS.has(clause.verb) && stand && isPerson(stand) && standIn) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'covers_for',
      value: standIn,
      valueKind: 'person',
    });
  }
  // Who handles what: "Priya covers infra", "Tom handles infra", "李明负责支付模块".
  const owned = object ?? (clause.verb === 'be' ? complement('for', 'of') : undefined);
  const ownVerb =
    OWN_VERBS.has(clause.verb) ||
    (clause.verb === 'be' &&
      /\b(?:responsible|in charge)\b/iu.test(clause.verbText + ' ' + objectText));
  if (
    person &&
    ownVerb &&
    owned &&
    !isPerson(owned) &&
    owned.bare !== '' &&
    !DIET.test(owned.bare)
  ) {
    const thing = clause.verb === 'be' ? (complement('for', 'of')?.bare ?? '') : owned.bare;
    if (thing !== '' && !/^(?:it|this|that|them|responsible)$/iu.test(thing)) {
      out.push({
        ...base,
        subject: thing,
        subjectKind: 'thing',
        attribute: 'owner',
        value: subject.name,
        valueKind: 'person',
      });
    }
  }
  // States: "Tom is on vacation until December 8", "他在休假".
  const stateText = stateOf(clause);
  if (person && stateText) {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'state',
      value: stateText,
      valueKind: 'thing',
      ...(until ? { until } : {}),
    });
  }
  // Dates of plans: "we moved the beta deadline to January 10", "the launch is on May 3".
  const dated = dateClaim(clause, subject);
  if (dated) out.push({ ...base, ...dated, change: change || clause.verb !== 'be' });
  // Tools: "we switched to pnpm", "the team uses Docker".
  const tool = [complement('to'), object].find((p) => p?.entity?.type === 'tool');
  // "We switched Atlas from npm to pnpm": the object is what switched, when it is no tool.
  const switched =
    object && object !== tool && !object.pronoun && object.entity?.type !== 'tool'
      ? object.bare
      : undefined;
  if (USE_VERBS.has(clause.verb) && tool?.entity) {
    out.push({
      ...base,
      subject: switched ?? subject.name,
      subjectKind: switched ? 'thing' : subject.kind,
      attribute: 'tool',
      value: tool.entity.text,
      valueKind: 'tool',
      change: change || clause.verb !== 'use',
    });
  }
  // Likes: "I love hiking", "我喜欢咖啡".
  if (person && LIKE_VERBS.has(clause.verb) && object && !object.pronoun && objectText !== '') {
    out.push({
      ...base,
      subject: subject.name,
      subjectKind: 'person',
      attribute: 'likes',
      value: objectText,
      valueKind: 'thing',
      negated: clause.negated || clause.verb === 'hate' || clause.verb === 'dislike',
    });
  }
  return out;
}

function dietOf(clause: Clause): string | undefined {
  if (clause.verb === 'be vegetarian') return 'vegetarian';
  const texts = [clause.object?.text ?? '', ...clause.complements.map((c) => c.phrase.text)];
  for (const text of texts) {
    const m = DIET_WORD.exec(text);
    if (m) return (m[1] ?? (m[2] === '纯素' ? 'vegan' : 'vegetarian')).toLowerCase();
  }
  return undefined;
}

function stateOf(clause: Clause): string | undefined {
  if (clause.verb.startsWith('be on ')) return clause.verb.slice(3);
  if (clause.verb !== 'be') return undefined;
  const on = clause.complements.find((c) => c.prep === 'on' && STATE.test(`on ${c.phrase.bare}`));
  if (on) return `on ${on.phrase.bare}`;
  if (clause.object && STATE.test(clause.object.bare)) return clause.object.bare;
  const after = [
    clause.object?.text ?? '',
    ...clause.complements.map((c) => `${c.prep} ${c.phrase.text}`),
  ]
    .join(' ')
    .trim();
  return STATE_AFTER.exec(after)?.[0].toLowerCase();
}

function dateClaim(
  clause: Clause,
  subject: Subject,
): Pick<Claim, 'subject' | 'subjectKind' | 'attribute' | 'value' | 'valueKind'> | undefined {
  if (!DATE_VERBS.has(clause.verb)) return undefined;
  const dateAt = [
    ...clause.complements
      .filter((c) => ['to', 'for', 'on', 'until', 'at', 'by', 'in'].includes(c.prep))
      .map((c) => c.phrase),
    ...(clause.object ? [clause.object] : []),
  ].find((p) => p.entity?.type === 'date');
  if (!dateAt?.entity) return undefined;
  // The thing whose date it is: the object ("moved the deadline to …"), else the subject.
  const thing =
    clause.object && clause.object !== dateAt && PLAN_THING.test(clause.object.text)
      ? clause.object.bare
      : subject.kind === 'thing' && PLAN_THING.test(subject.name)
        ? subject.name
        : undefined;
  if (!thing) return undefined;
  return {
    subject: thing,
    subjectKind: 'thing',
    attribute: 'date',
    value: dateAt.entity.text,
    valueKind: 'date',
  };
}

function isPlace(p: Phrase): boolean {
  if (p.entity?.type === 'place') return true;
  if (p.entity && p.entity.type !== 'person') return false;
  return (
    /^\p{Lu}\p{Ll}+(?:\s\p{Lu}\p{Ll}+)*$/u.test(p.bare) || /^\p{Script=Han}{2,6}$/u.test(p.bare)
  );
}

function isPerson(p: Phrase): boolean {
  return (
    p.entity?.type === 'person' ||
    (p.pronoun && THIRD.test(p.text)) ||
    /^\p{Lu}\p{Ll}+$/u.test(p.bare)
  );
}

export function uniqueClaims(claims: Claim[]): Claim[] {
  const seen = new Set<string>();
  return claims.filter((c) => {
    const key = `${c.subject}\u0000${c.attribute}\u0000${c.value}\u0000${c.negated}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Per attribute, the words (English, Chinese) a question about it is asked with; the first is
 * the attribute's name. They tag events and blocks, so "where does Nina live?" and a block
 * about a move find the statements about where someone lives.
 */
const CLAIM_WORDS: Record<Attribute, readonly [readonly string[], readonly string[]]> = {
  diet: [['diet'], ['饮食']],
  location: [['location', 'live'], ['住在']],
  role: [['role'], ['职位']],
  employer: [['employer', 'work'], ['工作']],
  owner: [['owner', 'handles'], ['负责']],
  covers_for: [['covers'], ['代替']],
  state: [['status'], ['状态']],
  date: [['date'], ['日期']],
  tool: [['tool', 'uses'], ['使用']],
  likes: [['likes'], ['喜欢']],
  member_of: [['team'], ['团队']],
};

export function claimWords(claim: Claim): readonly string[] {
  const han = /\p{Script=Han}/u.test(`${claim.subject}${claim.value}`);
  return CLAIM_WORDS[claim.attribute][han ? 1 : 0];
}

/** Names compare case-folded, without a leading article; Han text as is. */
export function claimKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^(?:the|a|an|our|my|this)\s+/u, '')
    .replace(/[\s_-]+/gu, ' ')
    .trim();
}
