/**
 * Cue patterns for the kinds of statements L2 should keep (MM-BLK-4: decisions, constraints,
 * plans, results) plus the facts extraction cares about. English and Chinese are matched alike
 * (MM-GEN-12); Chinese has no word boundaries, so its cues are plain substrings.
 */
export type Signal =
  | 'decision'
  | 'plan'
  | 'constraint'
  | 'result'
  | 'preference'
  | 'change'
  | 'time'
  | 'number'
  | 'firstPerson';

const CUES: readonly (readonly [Signal, RegExp])[] = [
  [
    'decision',
    /\b(decid(e|ed|es|ing)|decision|agreed?|go(ing)? with|settled? on|chose|choose|opted?|we'll use|let's (use|go|do|switch|move|keep))\b|决定|确定|选定|改用|换成|定了|就用|采用|敲定|拍板|批准/iu,
  ],
  [
    'plan',
    /\b(will|i'll|we'll|going to|gonna|plan(s|ned|ning)?|next (week|month|year|time|step|sprint)|tomorrow|tonight|schedul(e|ed)|intend|todo|deadline|roadmap|by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|the end))\b|计划|打算|准备|下周|下个月|明天|明年|将要|将会|安排|预计|争取/iu,
  ],
  [
    'constraint',
    /\b(must|have to|has to|needs?|should(n't)?|can't|cannot|won't|never|always|only|requires?|required|requirement|at (most|least)|no more than|not allowed|avoid|limit(ed)?)\b|必须|需要|不能|不可以|只能|不要|务必|至少|最多|限制|要求|禁止|避免|一定要/iu,
  ],
  [
    'result',
    /\b(done|fixed|works|worked|passed|failed|fails|broke|broken|resolved|finished|completed|shipped|released|deployed|merged|found|turns out|succeeded|faster|slower)\b|完成|修复|解决|成功|失败|结果|发现|上线|搞定|通过了|报错|出错/iu,
  ],
  [
    'preference',
    /\b((i|we) (really )?(like|love|prefer|hate|enjoy|dislike|want|wish)|prefer(s|red|ence)?|favou?rite|would rather)\b|喜欢|讨厌|偏好|更愿意|最爱|希望|想要|倾向/iu,
  ],
  [
    'change',
    /\b(chang(e|ed|ing)|switch(ed|ing)?|mov(e|ed|ing) (to|from)|migrat(e|ed|ing|ion)|start(ed)?|stopp?(ed)?|quit|no longer|anymore|instead|replac(e|ed|ing)|upgrad(e|ed|ing))\b|改成|变成|换了|迁移|开始|停止|不再|升级|替换|搬到/iu,
  ],
  [
    'time',
    /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december|yesterday|today|tonight|tomorrow|last (week|month|year|night)|ago|since|weekend)\b|\p{Nd}+\s*[年月日号]|[一二三四五六七八九十]+[月日号]|周[一二三四五六日末]|星期|昨天|今天|前天|去年|今年|上周|下周|本周/iu,
  ],
  ['number', /\p{Nd}|[一二三四五六七八九十百千万两]+(个|次|年|月|天|周|岁|点|人|元|块|倍)/u],
  ['firstPerson', /\b(i|i'm|i've|i'd|i'll|my|me|mine|we|we're|we've|we'll|our|us)\b|我/iu],
];

/** Relative value of each cue when ranking key points; decisions and plans lead L2. */
export const SIGNAL_WEIGHT: Record<Signal, number> = {
  decision: 3,
  plan: 2.5,
  constraint: 2,
  result: 2,
  preference: 2,
  change: 1.5,
  time: 1.5,
  number: 1,
  firstPerson: 1.5,
};

export function detectSignals(text: string): Signal[] {
  return CUES.filter(([, pattern]) => pattern.test(text)).map(([signal]) => signal);
}
