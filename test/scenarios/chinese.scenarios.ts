import type { Scenario } from './scenario.ts';

/** Simplified-Chinese conversations written for the suite (MM-GEN-12). */
export const CHINESE_SCENARIOS: Scenario[] = [
  {
    name: 'zh-relocation-shanghai-to-shenzhen',
    sessions: [
      { at: '2026-03-01T02:00:00Z', turns: [['王芳', '我住在上海，离公司很近。']] },
      { at: '2026-09-01T02:00:00Z', turns: [['王芳', '我搬到了深圳。']] },
    ],
    expect: {
      supersedes: [{ newer: /深圳/u, older: /上海/u }],
      edges: [{ from: '王芳', relation: 'lives_in', to: '深圳' }],
      answers: [{ question: '王芳现在住在哪里？', expect: /深圳/u, not: /上海/u }],
    },
  },
  {
    name: 'zh-diet-preference',
    sessions: [
      {
        at: '2026-05-01T04:00:00Z',
        turns: [
          ['李明', '我现在吃素，聚餐的时候请别点肉。'],
          ['陈静', '好的，我记住了。'],
        ],
      },
    ],
    expect: {
      events: [{ match: /吃素/u, criticality: 'preference' }],
      facts: [{ node: '李明', key: 'diet', value: /^vegetarian$/u }],
    },
  },
  {
    name: 'zh-deadline-moved',
    sessions: [
      {
        at: '2026-11-30T03:00:00Z',
        turns: [
          ['赵磊', 'beta的截止日期推迟到1月10日。'],
          ['孙悦', '好的，我去更新计划。'],
        ],
      },
    ],
    expect: {
      events: [
        {
          match: /截止日期/u,
          happenedStart: '2027-01-10',
          precision: 'day',
          originalText: '1月10日',
          status: 'planned',
        },
      ],
      facts: [{ node: 'beta', key: '截止日期', value: /^2027-01-10/u }],
    },
  },
  {
    name: 'zh-hand-over',
    sessions: [
      { at: '2026-11-10T02:00:00Z', turns: [['刘洋', '张伟负责基础设施。']] },
      {
        at: '2026-11-30T02:00:00Z',
        turns: [['刘洋', '张伟休假到12月8日，所以李娜负责基础设施。']],
      },
    ],
    expect: {
      events: [
        {
          match: /李娜负责基础设施/u,
          happenedStart: '2026-11-30',
          happenedEnd: '2026-12-08',
          precision: 'range',
        },
      ],
      supersedes: [{ newer: /李娜负责基础设施/u, older: /^刘洋: 张伟负责基础设施/u }],
      facts: [{ node: '基础设施', key: 'owner', value: /^李娜$/u }],
      answers: [{ question: '谁负责基础设施？', expect: /李娜/u, not: /^刘洋: 张伟负责/mu }],
    },
  },
  {
    name: 'zh-role',
    sessions: [{ at: '2026-04-01T02:00:00Z', turns: [['周杰', '李娜担任产品经理。']] }],
    expect: {
      facts: [{ node: '李娜', key: 'role', value: /产品经理/u }],
    },
  },
  {
    name: 'zh-last-month-trip',
    sessions: [
      { at: '2026-06-15T02:00:00Z', turns: [['吴敏', '我上个月去了成都，吃了很多火锅。']] },
    ],
    expect: {
      events: [
        {
          match: /成都/u,
          happenedStart: '2026-05-01',
          happenedEnd: '2026-05-31',
          status: 'occurred',
        },
      ],
    },
  },
  {
    name: 'zh-cover-for',
    sessions: [{ at: '2026-08-03T02:00:00Z', turns: [['郑浩', '下周王强代替陈晨值班。']] }],
    expect: {
      edges: [{ from: '王强', relation: 'covers_for', to: '陈晨' }],
    },
  },
];
