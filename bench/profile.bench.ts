/**
 * `node --import tsx bench/profile.bench.ts [--rounds N] [--turns T]`
 *
 * The resident profile's cost on the request path (ADR 0050, ADR 0051), on in-memory PGlite (or
 * DATABASE_URL), one node with every role and the offline provider, requests by `inject`:
 *
 * - recall in a space with T turns, unbound (empty `default`, no section) against bound to a
 *   profile with every field set (5,900 characters), N requests each, alternated;
 * - `PATCH /v1/profiles/{id}`, N changes, answered once projected;
 * - remember: 20 identical statements at once in one space (decided one at a time), 20
 *   different statements at once in one space, and 20 at once spread over 20 spaces.
 *
 * Prints one JSON object of latencies in ms.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { StrataGateError, type OperationInput } from '@stratagate/client';
import { startTestNode, type TestNode } from '../test/harness.ts';
import { generateTurn, prng, speakerFor } from './search-corpus.ts';
import { round, summarize } from './stats.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '100' },
    turns: { type: 'string', default: '120' },
  },
});
const rounds = Number(values.rounds);
const turns = Number(values.turns);

/** `n` distinct sentences (maintenance removes repeats, so none repeats). */
const sentences = (n: number, make: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => make(i + 1)).join(' ');

/** Every field filled, 5,622 characters in all (MM-PRO-2 allows 6,000). */
const FULL_PROFILE: Record<string, string> = {
  userPreferredName: 'Caroline',
  assistantPreferredName: 'Atlas',
  preferredLanguage: 'English',
  reasoningLanguage: 'English',
  defaultLocation: 'Shenzhen, Nanshan district',
  homeCity: 'Harbin',
  currentCity: 'Beijing',
  responsePreferences: sentences(24, (i) => `Style rule ${i}: short answers, code first.`),
  standingInstructions: sentences(22, (i) => `Instruction ${i}: cite every figure's source.`),
  userBackground: sentences(27, (i) => `Background ${i}: backend work on payments in TypeScript.`),
  longTermGoals: sentences(25, (i) => `Goal ${i}: learn to run a platform team.`),
  persistentNotes: sentences(26, (i) => `Note ${i}: vegetarian on weekdays, no peanuts.`),
};

/** Twenty facts that share no content words, so each is a new event. */
const FACTS = [
  'The staging database is backed up every night at two.',
  'Marta leads the billing migration until March.',
  'Our Kafka cluster runs three brokers in Frankfurt.',
  'The mobile app release train leaves every second Thursday.',
  'Invoices older than seven years get archived to cold storage.',
  'Jonas prefers reviewing pull requests before lunch.',
  'The office coffee machine was replaced with an espresso grinder.',
  'Quarterly planning happens offsite near Lisbon.',
  'Grafana alerts page the on-call phone after five minutes.',
  'Priya owns the onboarding checklist for contractors.',
  'The legacy PHP monolith still serves password resets.',
  'Customer exports use signed links valid for one day.',
  'Design tokens live inside a separate npm package called palette.',
  'Tom broke his wrist skiing and types slowly this month.',
  'Load tests target twelve thousand checkout requests per minute.',
  'The warehouse scanner firmware cannot handle unicode labels.',
  'Legal approved storing IP addresses for ninety days.',
  'Friday demos are recorded and posted on the wiki.',
  'Elastic licences renew in November with a discount.',
  'Sofia translates release notes into Portuguese.',
];

const ms = (t0: number) => performance.now() - t0;
type ProfileField = OperationInput<'editProfileField'>['body']['field'];

const stats = (samples: number[]) => {
  const s = summarize(samples);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95), max: round(s.max) };
};

async function seed(t: TestNode, space: string) {
  const rng = prng(50);
  const speaker = speakerFor(rng);
  await t.client.call('configureSpace', { spaceId: space, body: { blockSize: 6 } });
  for (let i = 0; i < turns; i += 1) {
    await t.client.call('recordTurn', {
      spaceId: space,
      body: {
        turnId: `t${i}`,
        threadId: 'chat',
        occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        messages: generateTurn(rng, speaker),
      },
    });
  }
}

async function timedAll(calls: (() => Promise<{ outcome: string }>)[]) {
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  const t0 = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      const c0 = performance.now();
      // A refusal is counted by its code (without the per-space order, `memory_busy` appears).
      const outcome = await call().then(
        (res) => res.outcome,
        (error: unknown) => {
          if (!(error instanceof StrataGateError)) throw error;
          return `${error.status} ${error.code}`;
        },
      );
      latencies.push(ms(c0));
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }),
  );
  return { wallMs: round(ms(t0)), ...stats(latencies), outcomes };
}

const t = await startTestNode('profile_bench');
try {
  // Two spaces of the same conversation: one unbound, one bound to the full profile.
  await seed(t, 'plain');
  await seed(t, 'bound');
  const sg = t.client;
  await sg.call('createProfile', { profileId: 'caroline' });
  let cityRevision: string | null = null;
  for (const [field, value] of Object.entries(FULL_PROFILE)) {
    const res = await sg.call('editProfileField', {
      profileId: 'caroline',
      body: { field: field as ProfileField, value, expectedRevision: null },
    });
    if (field === 'currentCity') cityRevision = res.revision;
  }
  await sg.call('configureSpace', { spaceId: 'bound', body: { profileId: 'caroline' } });
  await t.settle('plain', undefined, 600_000);
  await t.settle('bound', undefined, 600_000);

  const recall = { plain: [] as number[], bound: [] as number[] };
  const contextChars = { plain: 0, bound: 0 };
  for (let i = 0; i < rounds; i += 1) {
    for (const space of ['plain', 'bound'] as const) {
      const t0 = performance.now();
      const res = await sg.call('recall', {
        spaceId: space,
        threadId: 'chat',
        body: { message: 'What did we decide about the launch?' },
      });
      recall[space].push(ms(t0));
      contextChars[space] = res.contextText.length;
    }
  }

  const patch: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const t0 = performance.now();
    const res = await sg.call('editProfileField', {
      profileId: 'caroline',
      body: {
        field: 'currentCity',
        value: i % 2 === 0 ? 'Shanghai' : 'Beijing',
        expectedRevision: cityRevision,
      },
    });
    patch.push(ms(t0));
    cityRevision = res.revision;
  }

  const remember = (space: string, content: string) => () =>
    sg.call('remember', { spaceId: space, threadId: 'chat', body: { content } });
  const identical = await timedAll(
    Array.from({ length: 20 }, () =>
      remember('plain', 'Nightly snapshots of the analytics warehouse are kept for a month.'),
    ),
  );
  const distinct = await timedAll(FACTS.map((fact) => remember('plain', fact)));
  const spaces = Array.from({ length: 20 }, (_, i) => `r${i}`);
  for (const space of spaces) {
    await sg.call('configureSpace', { spaceId: space, body: { blockSize: 6 } });
  }
  const spread = await timedAll(spaces.map((space, i) => remember(space, FACTS[i]!)));

  console.log(
    JSON.stringify(
      {
        backend: process.env.DATABASE_URL ? 'postgres' : 'pglite',
        turns,
        rounds,
        profileChars: Object.values(FULL_PROFILE).join('').length,
        recall: { unbound: stats(recall.plain), bound: stats(recall.bound), contextChars },
        patch: stats(patch),
        remember20: { identicalOneSpace: identical, distinctOneSpace: distinct, spread },
      },
      null,
      1,
    ),
  );
} finally {
  await t.stop();
}
