/**
 * Deterministic conversation text for the search benchmark: a seeded PRNG draws words from a
 * fixed vocabulary with a Zipf distribution (so BM25 sees realistic document frequencies: a few
 * very common terms, a long tail of rare ones), inside sentence templates that carry the cues the
 * offline extractor reacts to (decisions, plans, meetings, releases, dates, people, places), plus
 * a share of Chinese and mixed sentences. Same seed, same text, on every machine.
 */

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;

export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
export const chance = (rng: Rng, p: number) => rng() < p;
export const between = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

/** 32 hex digits from the PRNG: ids look like the service's (`evt_<uuid without dashes>`). */
export function hexId(rng: Rng, prefix: string): string {
  let s = '';
  for (let i = 0; i < 4; i++) {
    s += Math.floor(rng() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  }
  return `${prefix}_${s}`;
}

const PEOPLE = [
  'Caroline',
  'Melanie',
  'Jon',
  'Gina',
  'Tim',
  'John',
  'Maria',
  'Joanna',
  'Nate',
  'Audrey',
  'Andrew',
  'James',
  'Deborah',
  'Evan',
  'Sam',
  'Calvin',
  'Dave',
  'Jolene',
  'Priya',
  'Omar',
  'Lena',
  'Tomas',
  'Aisha',
  'Felix',
  'Hana',
  'Ravi',
  'Sofia',
  'Marco',
  'Ingrid',
  'Yusuf',
  'Keiko',
  'Pablo',
  'Nora',
  'Elias',
  'Chloe',
  'Mateo',
];

const PLACES = [
  'Lisbon',
  'Berlin',
  'Osaka',
  'Seattle',
  'Nairobi',
  'Porto',
  'Denver',
  'Krakow',
  'Austin',
  'Hamburg',
  'Toronto',
  'Valencia',
  'Chengdu',
  'Shanghai',
  'Munich',
  'Dublin',
  'Oslo',
  'Boston',
  'Madrid',
  'Kyoto',
];

/** Topic nouns, most frequent first (Zipf rank = index). */
const NOUNS = [
  'build',
  'release',
  'budget',
  'meeting',
  'project',
  'workshop',
  'painting',
  'school',
  'talk',
  'lunch',
  'deploy',
  'index',
  'database',
  'pipeline',
  'garden',
  'trip',
  'concert',
  'class',
  'report',
  'dashboard',
  'kitchen',
  'roadmap',
  'contract',
  'invoice',
  'presentation',
  'pottery',
  'camping',
  'hike',
  'marathon',
  'recipe',
  'bakery',
  'server',
  'cluster',
  'migration',
  'schema',
  'sprint',
  'review',
  'interview',
  'apartment',
  'lease',
  'wedding',
  'birthday',
  'party',
  'dinner',
  'library',
  'museum',
  'exhibition',
  'guitar',
  'piano',
  'violin',
  'novel',
  'poem',
  'podcast',
  'newsletter',
  'website',
  'prototype',
  'backend',
  'frontend',
  'endpoint',
  'queue',
  'cache',
  'lockfile',
  'package',
  'dependency',
  'branch',
  'commit',
  'staging',
  'production',
  'milestone',
  'course',
  'exam',
  'thesis',
  'grant',
  'mentor',
  'volunteer',
  'shelter',
  'adoption',
  'puppy',
  'kitten',
  'bicycle',
  'car',
  'flight',
  'hotel',
  'visa',
  'passport',
  'doctor',
  'dentist',
  'therapy',
  'yoga',
  'gym',
  'swim',
  'tennis',
  'soccer',
  'chess',
  'photography',
  'camera',
  'lens',
  'studio',
  'gallery',
  'canvas',
  'sketch',
  'sculpture',
  'festival',
  'parade',
  'market',
  'harvest',
  'orchard',
  'vineyard',
  'beach',
  'mountain',
  'lake',
  'river',
  'forest',
  'cabin',
  'tent',
  'kayak',
  'sailboat',
  'telescope',
  'robot',
  'drone',
  'sensor',
  'firmware',
  'keyboard',
  'monitor',
  'laptop',
  'tablet',
  'printer',
  'router',
  'tax',
  'mortgage',
  'insurance',
  'pension',
  'salary',
  'promotion',
  'offer',
  'startup',
  'investor',
  'pitch',
  'demo',
  'hackathon',
  'conference',
  'keynote',
  'panel',
  'webinar',
  'tutorial',
  'documentation',
  'changelog',
  'benchmark',
  'profiler',
  'flamegraph',
  'outage',
  'incident',
  'postmortem',
  'alert',
  'pager',
  'rota',
  'onboarding',
  'offboarding',
  'survey',
  'feedback',
  'retro',
  'standup',
  'ticket',
  'backlog',
  'estimate',
  'deadline',
];

const ADJECTIVES = [
  'new',
  'old',
  'big',
  'small',
  'quarterly',
  'annual',
  'weekly',
  'final',
  'first',
  'second',
  'shared',
  'private',
  'public',
  'urgent',
  'quiet',
  'noisy',
  'long',
  'short',
  'blue',
  'green',
  'red',
  'wooden',
  'digital',
  'local',
  'remote',
];

const FOODS = ['peanuts', 'shellfish', 'gluten', 'penicillin', 'sesame', 'lactose'];

const TIMES = [
  'yesterday',
  'last Friday',
  'last Saturday',
  'next Tuesday',
  'next week',
  'last week',
  'next month',
  'last month',
  'this weekend',
  'last weekend',
  'tomorrow',
  'on 12 May',
  'on March 3',
  'in 2022',
  'last summer',
  'next spring',
  'two weeks ago',
  'earlier this month',
  'on Monday',
  'on Thursday',
];

const ZH_PEOPLE = ['李明', '王芳', '张伟', '刘洋', '陈静', '杨磊', '赵敏', '周杰'];
const ZH_NOUNS = [
  '预算',
  '会议',
  '项目',
  '学校',
  '演讲',
  '版本',
  '数据库',
  '接口',
  '测试',
  '旅行',
  '婚礼',
  '课程',
  '合同',
  '报告',
  '画展',
  '音乐会',
  '服务器',
  '需求',
  '里程碑',
  '搬家',
];
const ZH_TIMES = ['下周三', '上周末', '去年夏天', '明年3月', '下个月', '上周', '三天前', '这周日'];

/**
 * Jargon and code names: pseudo-words from syllables, the long tail of the distribution (each
 * one rare on its own, together a large share of the tokens, as names and jargon are in chat).
 */
function pseudoWords(count: number, seed: number): string[] {
  const rng = prng(seed);
  const syllables = [
    'ka',
    'lo',
    'ri',
    'sen',
    'ta',
    'mu',
    'vel',
    'dor',
    'ni',
    'pa',
    'zen',
    'bri',
    'tho',
    'mar',
    'lin',
    'gu',
    'ox',
    'fe',
    'ran',
    'sol',
    'kir',
    'vo',
    'ny',
    'quo',
    'bel',
    'tra',
    'es',
    'hul',
  ];
  const out = new Set<string>();
  while (out.size < count) {
    const n = between(rng, 2, 3);
    let w = '';
    for (let i = 0; i < n; i++) w += pick(rng, syllables);
    if (w.length >= 5) out.add(w);
  }
  return [...out];
}

const CODENAMES = pseudoWords(4000, 7);

/** Samples ranks 0..n-1 with P(r) ∝ 1/(r+1)^s, by inverting a precomputed CDF. */
function zipf(n: number, s: number): (rng: Rng) => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) cdf[r] = total += 1 / (r + 1) ** s;
  return (rng) => {
    const x = rng() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const nounRank = zipf(NOUNS.length, 0.9);
const codeRank = zipf(CODENAMES.length, 1.05);
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

export const vocabulary = {
  noun: (rng: Rng) => NOUNS[nounRank(rng)]!,
  code: (rng: Rng) => cap(CODENAMES[codeRank(rng)]!),
  jargon: (rng: Rng) => CODENAMES[codeRank(rng)]!,
  person: (rng: Rng) => pick(rng, PEOPLE),
  place: (rng: Rng) => pick(rng, PLACES),
  time: (rng: Rng) => pick(rng, TIMES),
  adjective: (rng: Rng) => pick(rng, ADJECTIVES),
};

const v = vocabulary;

/** Sentences the extractor turns into events (cue word + first person or a strong type). */
const EVENT_SENTENCES: ((rng: Rng) => string)[] = [
  (r) => `${v.person(r)} and I decided to move the ${v.noun(r)} to ${v.code(r)} ${v.time(r)}.`,
  (r) => `We plan to hold the ${v.adjective(r)} ${v.noun(r)} in ${v.place(r)} ${v.time(r)}.`,
  (r) => `I finished the ${v.noun(r)} for ${v.code(r)} ${v.time(r)}, it took ages.`,
  (r) => `I met with ${v.person(r)} in ${v.place(r)} about the ${v.noun(r)} ${v.time(r)}.`,
  (r) => `We switched to ${v.code(r)} for the ${v.noun(r)} ${v.noun(r)} ${v.time(r)}.`,
  (r) => `The ${v.code(r)} ${v.noun(r)} was cancelled ${v.time(r)} because of the ${v.noun(r)}.`,
  (r) => `We released ${v.code(r)} ${between(r, 1, 9)}.${between(r, 0, 20)} ${v.time(r)}.`,
  (r) => `The ${v.noun(r)} broke during the ${v.noun(r)} ${v.time(r)} and ${v.person(r)} fixed it.`,
  (r) => `I'm going to the ${v.noun(r)} with ${v.person(r)} ${v.time(r)}.`,
  (r) => `We migrated the ${v.jargon(r)} ${v.noun(r)} to ${v.code(r)} ${v.time(r)}.`,
  (r) => `I worked with ${v.person(r)} on the ${v.adjective(r)} ${v.noun(r)} ${v.time(r)}.`,
  (r) => `I really love the ${v.noun(r)} at ${v.place(r)}, we go there every ${v.time(r)}.`,
  (r) => `${v.person(r)} and I agreed to review the ${v.jargon(r)} ${v.noun(r)} ${v.time(r)}.`,
];

const RARE_EVENT_SENTENCES: ((rng: Rng) => string)[] = [
  (r) => `My daughter is allergic to ${pick(r, FOODS)}, please remember that for the ${v.noun(r)}.`,
  (r) =>
    `I moved to ${v.place(r)} ${v.time(r)} and I work as a ${pick(r, ['nurse', 'designer', 'developer', 'teacher'])}.`,
];

/** Chat without cues: context the extractor skips, still indexed for raw search. */
const CHAT_SENTENCES: ((rng: Rng) => string)[] = [
  (r) => `The ${v.noun(r)} looked ${v.adjective(r)} and the ${v.noun(r)} was fine.`,
  (r) => `Honestly the ${v.jargon(r)} part of the ${v.noun(r)} is the tricky bit.`,
  (r) => `How did the ${v.noun(r)} go with ${v.person(r)}?`,
  (r) => `That sounds great, tell me more about the ${v.noun(r)} in ${v.place(r)}.`,
  (r) => `Noted, the ${v.noun(r)} for ${v.code(r)} is on the list.`,
  (r) => `Is the ${v.adjective(r)} ${v.noun(r)} still blocked on ${v.code(r)}?`,
  (r) => `Sure, here is a short summary of the ${v.noun(r)} and the ${v.noun(r)} options.`,
  (r) => `Good luck with the ${v.noun(r)}!`,
];

const ZH_SENTENCES: ((rng: Rng) => string)[] = [
  (r) => `我们决定${pick(r, ZH_TIMES)}和${pick(r, ZH_PEOPLE)}一起讨论${pick(r, ZH_NOUNS)}。`,
  (r) =>
    `${pick(r, ZH_PEOPLE)}说${pick(r, ZH_NOUNS)}${pick(r, ZH_TIMES)}上线，${v.code(r)}也要发布。`,
  (r) => `我计划${pick(r, ZH_TIMES)}去${v.place(r)}参加${pick(r, ZH_NOUNS)}。`,
  (r) => `${pick(r, ZH_NOUNS)}的${pick(r, ZH_NOUNS)}还没定，先看看${v.code(r)}吧。`,
];

export interface GeneratedMessage {
  role: 'user' | 'assistant';
  name?: string;
  content: string;
}

/** One finished turn: a user message (1–3 sentences) and the assistant's reply. */
export function generateTurn(rng: Rng, speaker: string): GeneratedMessage[] {
  const user: string[] = [];
  if (chance(rng, 0.08)) {
    user.push(pick(rng, ZH_SENTENCES)(rng));
  } else {
    if (chance(rng, 0.3)) user.push(pick(rng, CHAT_SENTENCES)(rng));
    if (chance(rng, 0.003)) user.push(pick(rng, RARE_EVENT_SENTENCES)(rng));
    else if (chance(rng, 0.72)) user.push(pick(rng, EVENT_SENTENCES)(rng));
    if (user.length === 0 || chance(rng, 0.2)) user.push(pick(rng, CHAT_SENTENCES)(rng));
  }
  const reply = [pick(rng, CHAT_SENTENCES)(rng)];
  if (chance(rng, 0.25)) reply.push(pick(rng, CHAT_SENTENCES)(rng));
  return [
    { role: 'user', name: speaker, content: user.join(' ') },
    { role: 'assistant', content: reply.join(' ') },
  ];
}

export const speakerFor = (rng: Rng) => pick(rng, PEOPLE);

export interface BenchQuery {
  kind: 'keywords' | 'question' | 'chinese' | 'mixed';
  text: string;
}

/**
 * The fixed query set: keyword queries (frequent and rare terms), natural questions (whose
 * function words hit long posting lists, as agents' questions do), Chinese and mixed ones.
 */
export function benchQueries(count = 48, seed = 4242): BenchQuery[] {
  const r = prng(seed);
  const make: (() => BenchQuery)[] = [
    () => ({ kind: 'keywords', text: `${v.noun(r)} ${v.code(r)}` }),
    () => ({ kind: 'keywords', text: `${v.person(r)} ${v.noun(r)} ${v.place(r)}` }),
    () => ({ kind: 'keywords', text: v.jargon(r) }),
    () => ({
      kind: 'question',
      text: `when did we decide to move the ${v.noun(r)} to ${v.code(r)}?`,
    }),
    () => ({
      kind: 'question',
      text: `what did ${v.person(r)} say about the ${v.noun(r)} ${v.noun(r)}?`,
    }),
    () => ({
      kind: 'question',
      text: `is the ${v.noun(r)} in ${v.place(r)} still planned for ${v.time(r)}?`,
    }),
    () => ({
      kind: 'chinese',
      text: `${pick(r, ZH_PEOPLE)} ${pick(r, ZH_NOUNS)} ${pick(r, ZH_TIMES)}`,
    }),
    () => ({ kind: 'mixed', text: `${v.code(r)} ${pick(r, ZH_NOUNS)}发布` }),
  ];
  return Array.from({ length: count }, (_, i) => make[i % make.length]!());
}
