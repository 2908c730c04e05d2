import type { Scenario } from './scenario.ts';

/** The four failures of issue 37, as named cases, then English conversations written for the suite. */

/** (a) 30 turns in 3 sessions: facts, preferences, plans and changes of mind. */
export const THIRTY_TURNS: Scenario = {
  name: 'a-thirty-turns-three-sessions',
  sessions: [
    {
      at: '2026-10-05T09:00:00Z',
      turns: [
        ['Nina', 'Hi Omar, how was your weekend?'],
        ['Omar', 'Great! I went hiking near Lake Tahoe with my brother.'],
        ['Nina', 'Nice. I live in Boston now, the commute is much shorter.'],
        ['Omar', 'I work at Globex as a data engineer, mostly on the billing pipeline.'],
        ['Nina', "I'm vegetarian, so I'm looking for good lunch places nearby."],
        ['Omar', 'Lena leads the billing project and she is great to work with.'],
        ['Nina', 'We use Airflow for the nightly jobs.'],
        ['Omar', 'The billing launch is scheduled for November 20.'],
        ['Nina', 'Do you like the new office?'],
        ['Omar', 'I love the rooftop garden there.'],
      ],
    },
    {
      at: '2026-11-02T09:00:00Z',
      turns: [
        ['Nina', 'Big news: I moved to Denver last week.'],
        ['Omar', 'Wow! How is it?'],
        ['Nina', 'Cold, but I love the mountains.'],
        ['Omar', 'Lena is on parental leave until January 5, so Marco covers for her.'],
        ['Nina', 'Marco handles billing while she is away then.'],
        ['Omar', 'Yes, and we moved the billing launch to December 1.'],
        ['Nina', 'Good, that gives us time for the migration.'],
        ['Omar', 'I joined the platform team last month.'],
        ['Nina', 'Congrats! Is Priya on that team too?'],
        ['Omar', 'Yes, Priya is the tech lead of the platform team.'],
      ],
    },
    {
      at: '2026-11-30T09:00:00Z',
      turns: [
        ['Nina', "I'm pescatarian now, I started eating fish again."],
        ['Omar', 'Good for you. There is a sushi place near the office.'],
        ['Nina', 'My sister is getting married on June 14.'],
        ['Omar', 'Congratulations to her!'],
        ['Nina', 'We switched from Airflow to Dagster for the nightly jobs.'],
        ['Omar', 'How does Dagster compare?'],
        ['Nina', 'Much nicer to debug, and the team likes it.'],
        ['Omar', 'I will visit Lisbon in February for a conference.'],
        ['Nina', 'Send me photos!'],
        ['Omar', 'Sure, I will.'],
      ],
    },
  ],
  expect: {
    events: [
      { match: /Nina.*pescatarian/u, criticality: 'preference' },
      { match: /married on June 14/u, happenedStart: '2027-06-14', status: 'planned' },
      { match: /Lisbon in February/u, happenedStart: '2027-02-01', status: 'planned' },
    ],
    supersedes: [
      { newer: /pescatarian/u, older: /I'm vegetarian/u },
      { newer: /moved to Denver/u, older: /live in Boston/u },
      { newer: /moved the billing launch to December 1/u, older: /scheduled for November 20/u },
    ],
    facts: [
      { node: 'Nina', key: 'diet', value: /^pescatarian$/u },
      { node: 'Lena', key: 'state', value: /parental leave until January 5/u },
      { node: 'Priya', key: 'role', value: /tech lead/u },
      { node: 'billing', key: 'owner', value: /Marco/u },
    ],
    edges: [
      { from: 'Nina', relation: 'lives_in', to: 'Denver' },
      { from: 'Omar', relation: 'works_at', to: 'Globex' },
      { from: 'Marco', relation: 'covers_for', to: 'Lena' },
      { from: 'Omar', relation: 'member_of', to: 'platform team' },
    ],
    answers: [
      { question: 'Where does Nina live?', expect: /Denver/u, not: /Boston/u },
      { question: 'Is Nina vegetarian or pescatarian?', expect: /pescatarian/u },
    ],
  },
};

/** (b) A change of diet without a change cue in the old statement supersedes it as a preference. */
export const DIET_CHANGE: Scenario = {
  name: 'b-vegetarian-to-pescatarian',
  sessions: [
    {
      at: '2026-09-01T12:00:00Z',
      turns: [
        ['Mia', "I'm vegetarian, so no meat at the team dinner please."],
        ['Sam', 'Noted, I will tell the restaurant.'],
      ],
    },
    {
      at: '2026-10-15T12:00:00Z',
      turns: [
        ['Mia', "I'm pescatarian now."],
        ['Sam', 'Good to know, fish is fine then.'],
      ],
    },
  ],
  expect: {
    events: [
      { match: /Mia.*pescatarian/u, criticality: 'preference', eventType: 'change' },
      { match: /Mia.*vegetarian/u, criticality: 'preference' },
    ],
    supersedes: [{ newer: /pescatarian/u, older: /vegetarian/u }],
    facts: [{ node: 'Mia', key: 'diet', value: /^pescatarian$/u }],
    answers: [
      { question: "What is Mia's diet, vegetarian or pescatarian?", expect: /pescatarian/u },
    ],
  },
};

/** (c) A hand-over said in passing is extracted, and "who handles infra?" answers Priya. */
export const HAND_OVER: Scenario = {
  name: 'c-tom-on-vacation-priya-covers-infra',
  sessions: [
    {
      at: '2026-11-10T09:00:00Z',
      turns: [
        ['Lee', 'Tom handles infra and Priya works on the mobile app.'],
        ['Ana', 'Thanks, good to know who to ask.'],
      ],
    },
    {
      at: '2026-11-30T09:00:00Z',
      turns: [
        ['Lee', 'Tom is on vacation until December 8, so Priya covers infra.'],
        ['Ana', 'Thanks for the heads-up.'],
      ],
    },
  ],
  expect: {
    events: [
      {
        match: /Priya covers infra/u,
        participants: ['Lee', 'Tom', 'Priya'],
        happenedStart: '2026-11-30',
        happenedEnd: '2026-12-08',
        precision: 'range',
        originalText: 'until December 8',
        status: 'ongoing',
      },
    ],
    supersedes: [{ newer: /Priya covers infra/u, older: /Tom handles infra/u }],
    facts: [
      { node: 'infra', key: 'owner', value: /^Priya$/u },
      { node: 'Tom', key: 'state', value: /on vacation until December 8/u },
    ],
    edges: [{ from: 'Priya', relation: 'works_on', to: 'infra' }],
    answers: [
      { question: 'Who handles infra?', expect: /Priya covers infra/u, not: /Tom handles/u },
    ],
  },
};

/** (d) A date without a year, said before it comes, is the next one: 2027-01-10. */
export const DEADLINE_MOVED: Scenario = {
  name: 'd-beta-deadline-moved-to-january-10',
  sessions: [
    {
      at: '2026-11-30T15:00:00Z',
      turns: [
        ['Kai', 'We moved the beta deadline to January 10.'],
        ['Eve', 'OK, I will update the roadmap.'],
      ],
    },
  ],
  expect: {
    events: [
      {
        match: /beta deadline/u,
        happenedStart: '2027-01-10',
        happenedEnd: '2027-01-10',
        precision: 'day',
        originalText: 'January 10',
        status: 'planned',
      },
    ],
    facts: [{ node: 'beta', key: 'deadline', value: /^2027-01-10 \(January 10\)$/u }],
  },
};

export const ENGLISH_SCENARIOS: Scenario[] = [
  THIRTY_TURNS,
  DIET_CHANGE,
  HAND_OVER,
  DEADLINE_MOVED,
  {
    name: 'relocation-boston-to-denver',
    sessions: [
      { at: '2026-03-02T10:00:00Z', turns: [['Sara', 'I live in Boston with my two cats.']] },
      { at: '2026-08-20T10:00:00Z', turns: [['Sara', 'I relocated to Seattle in July.']] },
    ],
    expect: {
      events: [{ match: /Sara.*Boston/u, criticality: 'identity' }],
      supersedes: [{ newer: /Seattle/u, older: /Boston/u }],
      edges: [{ from: 'Sara', relation: 'lives_in', to: 'Seattle' }],
      answers: [{ question: 'Where does Sara live now?', expect: /Seattle/u, not: /Boston/u }],
    },
  },
  {
    name: 'role-change-without-cue',
    sessions: [
      { at: '2026-04-01T10:00:00Z', turns: [['Ivy', 'Dana is our QA lead.']] },
      { at: '2026-06-01T10:00:00Z', turns: [['Ivy', 'Dana is the engineering manager.']] },
    ],
    expect: {
      supersedes: [{ newer: /engineering manager/u, older: /QA lead/u }],
      facts: [{ node: 'Dana', key: 'role', value: /engineering manager/u }],
    },
  },
  {
    name: 'employer-change',
    sessions: [
      { at: '2025-05-01T10:00:00Z', turns: [['Raj', 'I work at Globex as an analyst.']] },
      { at: '2026-05-01T10:00:00Z', turns: [['Raj', 'I work at Initech now.']] },
    ],
    expect: {
      supersedes: [{ newer: /Initech/u, older: /Globex/u }],
      edges: [{ from: 'Raj', relation: 'works_at', to: 'Initech' }],
    },
  },
  {
    name: 'cover-for-parental-leave',
    sessions: [
      {
        at: '2026-02-10T10:00:00Z',
        turns: [['Joy', 'Sam covers for Alex while he is on parental leave.']],
      },
    ],
    expect: {
      events: [{ match: /Sam covers for Alex/u, participants: ['Joy', 'Sam', 'Alex'] }],
      edges: [{ from: 'Sam', relation: 'covers_for', to: 'Alex' }],
      facts: [{ node: 'Alex', key: 'state', value: /parental leave/u }],
    },
  },
  {
    name: 'pronoun-and-alias-in-a-block',
    sessions: [
      {
        at: '2026-05-12T10:00:00Z',
        turns: [
          ['Ben', 'Priya Sharma joined the payments team in May.'],
          ['Ben', 'She leads the checkout project.'],
          ['Ben', 'Priya is based in Toronto.'],
        ],
      },
    ],
    expect: {
      events: [{ match: /Priya Sharma leads the checkout project/u }],
      edges: [
        { from: 'Priya Sharma', relation: 'member_of', to: 'payments team' },
        { from: 'Priya Sharma', relation: 'works_on', to: 'checkout project' },
        { from: 'Priya Sharma', relation: 'lives_in', to: 'Toronto' },
      ],
    },
  },
  {
    name: 'same-restatement',
    sessions: [
      { at: '2026-01-05T10:00:00Z', turns: [['Zoe', "I'm vegan."]] },
      { at: '2026-03-05T10:00:00Z', turns: [['Zoe', 'I am vegan, as you know.']] },
    ],
    expect: {
      relations: [{ newer: /as you know/u, older: /^Zoe: is vegan$/mu, kind: 'same' }],
      facts: [{ node: 'Zoe', key: 'diet', value: /^vegan$/u }],
    },
  },
  {
    name: 'conflict-without-replacement',
    sessions: [
      { at: '2026-01-05T10:00:00Z', turns: [['Leo', 'Kim lives in Oslo.']] },
      { at: '2026-02-05T10:00:00Z', turns: [['Leo', "Kim doesn't live in Oslo."]] },
    ],
    expect: {
      relations: [
        { newer: /doesn't live in Oslo/u, older: /Kim lives in Oslo/u, kind: 'conflict' },
      ],
    },
  },
  {
    name: 'tool-switch',
    sessions: [
      { at: '2026-01-05T10:00:00Z', turns: [['Dev', 'Project Atlas uses npm.']] },
      { at: '2026-02-05T10:00:00Z', turns: [['Dev', 'We switched Atlas from npm to pnpm.']] },
    ],
    expect: {
      supersedes: [{ newer: /pnpm/u, older: /Atlas uses npm/u }],
      edges: [{ from: 'Atlas', relation: 'uses', to: 'pnpm' }],
    },
  },
  {
    name: 'past-and-future-dates',
    sessions: [
      {
        at: '2026-11-20T10:00:00Z',
        turns: [
          ['Eli', 'I went to Lisbon in March with my parents.'],
          ['Eli', 'My cousin is getting married on June 14.'],
          ['Eli', 'Yesterday I finished the marathon training plan.'],
        ],
      },
    ],
    expect: {
      events: [
        {
          match: /Lisbon/u,
          happenedStart: '2026-03-01',
          happenedEnd: '2026-03-31',
          status: 'occurred',
        },
        { match: /married on June 14/u, happenedStart: '2027-06-14', status: 'planned' },
        { match: /marathon/u, happenedStart: '2026-11-19', status: 'occurred' },
      ],
    },
  },
  {
    name: 'photo-caption',
    sessions: [
      {
        at: '2026-07-01T10:00:00Z',
        turns: [
          ['Ava', 'Look at our new puppy! [shares a photo: a golden retriever puppy on a beach]'],
          ['Noah', 'So cute! What is its name?'],
          ['Ava', 'Her name is Biscuit.'],
        ],
      },
    ],
    expect: {
      events: [{ match: /golden retriever puppy/u }, { match: /Biscuit/u }],
      answers: [
        { question: 'What breed is the puppy Ava shared a photo of?', expect: /golden retriever/u },
      ],
    },
  },
  {
    name: 'preferences-and-safety',
    sessions: [
      {
        at: '2026-06-01T10:00:00Z',
        turns: [
          ['Uma', 'I love hiking in the Alps.'],
          ['Uma', "I'm allergic to peanuts."],
        ],
      },
    ],
    expect: {
      events: [
        { match: /hiking in the Alps/u, criticality: 'preference' },
        { match: /allergic to peanuts/u, criticality: 'safety' },
      ],
      answers: [{ question: 'Is Uma allergic to anything?', expect: /peanuts/u }],
    },
  },
  {
    name: 'team-and-state',
    sessions: [
      {
        at: '2026-09-09T10:00:00Z',
        turns: [
          ['Max', 'Lena joined the platform team.'],
          ['Max', 'Jon is out sick today.'],
        ],
      },
    ],
    expect: {
      edges: [{ from: 'Lena', relation: 'member_of', to: 'platform team' }],
      facts: [{ node: 'Jon', key: 'state', value: /sick/u }],
    },
  },
];
