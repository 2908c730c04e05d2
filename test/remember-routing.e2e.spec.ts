import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/routing';

describe(`remember routes each statement to one place (MM-REM-6, ${describeBackend()})`, () => {
  let t: TestNode;
  const remember = (content: string, extra: Record<string, unknown> = {}) =>
    t.request('POST', `${S}/threads/chat/remember`, { content, ...extra });
  const events = async () =>
    (await t.request('GET', `${S}/memory-events?status=all&limit=200`)).body.events as {
      id: string;
      title: string;
      summary: string;
      pool: string;
      weight: { mentionCount: number };
    }[];
  const proposals = async () =>
    (await t.request('GET', '/v1/profiles/default/proposals')).body.proposals as {
      proposalId: string;
      field: string;
      value: string;
      status: string;
    }[];

  beforeAll(async () => {
    t = await startTestNode('remember_routing');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    await t.request('POST', `${S}/turns`, {
      threadId: 'chat',
      occurredAt: '2023-05-06T09:30:00+08:00',
      messages: [
        {
          role: 'user',
          name: 'Caroline',
          content: 'We switched Project Atlas from npm to pnpm last week.',
        },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    await t.settle('routing');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('routes the three example sentences to profile, event and conversation', async () => {
    const before = await events();

    const setting = await remember('From now on answer in Chinese.');
    expect(setting.status).toBe(200);
    expect(setting.body).toMatchObject({
      destination: 'profile',
      outcome: 'PROFILE_PROPOSED',
      gate: 'route:preferredLanguage',
      eventId: null,
      profile: {
        profileId: 'default',
        field: 'preferredLanguage',
        value: 'Chinese',
        status: 'proposed',
      },
    });
    expect(setting.body.note).toMatch(/ask them to agree/);
    expect(await proposals()).toMatchObject([
      {
        proposalId: setting.body.profile.proposalId,
        field: 'preferredLanguage',
        status: 'pending',
      },
    ]);

    const fact = await remember('This project switched its CI to GitHub Actions.');
    expect(fact.body).toMatchObject({ destination: 'event', outcome: 'ADDED', profile: null });

    const oneOff = await remember('Keep this answer short.');
    expect(oneOff.body).toMatchObject({
      destination: 'conversation',
      outcome: 'NOT_STORED',
      eventId: null,
      profile: null,
      position: null,
    });

    // Each lives in one place: one new event (the fact), one proposal (the setting).
    const after = await events();
    expect(after.length).toBe(before.length + 1);
    expect(after.map((e) => e.summary).join('\n')).not.toMatch(/Chinese|short/);
    expect(await proposals()).toHaveLength(1);
  });

  it('the same in Chinese', async () => {
    expect((await remember('以后默认用中文回答')).body).toMatchObject({
      destination: 'profile',
      profile: { field: 'preferredLanguage', value: '中文' },
    });
    expect((await remember('这次回答简短一点')).body.destination).toBe('conversation');
  });

  it('a setting the user asked for explicitly is saved at once, with its audit row', async () => {
    const res = await remember('Call me Carol.', { userExplicit: true });
    expect(res.body).toMatchObject({
      destination: 'profile',
      outcome: 'PROFILE_UPDATED',
      profile: { field: 'userPreferredName', value: 'Carol', status: 'applied' },
    });
    const profile = (await t.request('GET', '/v1/profiles/default')).body;
    expect(profile.fields.userPreferredName).toMatchObject({
      value: 'Carol',
      revision: res.body.profile.revision,
    });
    const change = (await t.request('GET', '/v1/profiles/default/history')).body.changes[0];
    expect(change).toMatchObject({ source: 'user_explicit', spaceId: 'routing', threadId: 'chat' });
    // The same again changes nothing.
    expect((await remember('Call me Carol.', { userExplicit: true })).body.outcome).toBe(
      'PROFILE_UNCHANGED',
    );
  });

  it('a setting that would overfill its field is refused naming it; nothing is written', async () => {
    await t.request('PUT', '/v1/profiles/full');
    await t.request('PUT', '/v1/spaces/full-chat/settings', { profileId: 'full' });
    const filled = await t.request('PATCH', '/v1/profiles/full', {
      field: 'standingInstructions',
      // Distinct sentences, which maintenance has nothing to remove from: 982 characters.
      value: Array.from({ length: 32 }, (_, i) => `Rule ${i + 1}: never guess a figure.`).join(' '),
      expectedRevision: null,
    });
    expect(filled.status).toBe(200);
    const res = await t.request('POST', '/v1/spaces/full-chat/threads/chat/remember', {
      content: 'From now on always cite your sources.',
      userExplicit: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'field_too_long',
      details: { field: 'standingInstructions', limit: 1000 },
    });
    expect(res.body.error.message).toMatch(/^standingInstructions /);
    const history = (await t.request('GET', '/v1/profiles/full/history')).body.changes;
    expect(history).toHaveLength(1);
    const events = await t.request('GET', '/v1/spaces/full-chat/memory-events?status=all');
    expect(events.body.events).toEqual([]);
  });

  it('a retried request id that went to the profile answers the same, once', async () => {
    const body = { requestId: 'chat:tool:route-1' };
    const first = await remember('I live in Harbin.', body);
    const again = await remember('I live in Harbin.', body);
    expect(first.body).toMatchObject({
      outcome: 'PROFILE_PROPOSED',
      profile: { field: 'homeCity' },
    });
    expect(again.body).toEqual(first.body);
    const mine = (await proposals()).filter((p) => p.field === 'homeCity');
    expect(mine).toHaveLength(1);
    const other = await remember('Deploys happen on Fridays.', body);
    expect(other.status).toBe(409);
  });

  it('a statement that agrees with an extracted event reinforces it, not a conflict', async () => {
    const extracted = (await events()).find(
      (e) => e.pool === 'extracted' && /pnpm/.test(e.summary),
    )!;
    expect(extracted).toBeDefined();
    const res = await remember('Atlas uses pnpm now.');
    expect(res.body).toMatchObject({
      destination: 'event',
      outcome: 'REINFORCED',
      gate: 'agreement',
      reinforcedEventId: extracted.id,
    });
    const after = (await events()).find((e) => e.id === extracted.id)!;
    expect(after.weight.mentionCount).toBe(extracted.weight.mentionCount + 1);
  });

  it('20 concurrent identical calls without a request id make 1 event and 19 reinforcements', async () => {
    const before = (await events()).length;
    const content = 'The staging database is backed up every night at two.';
    const replies = await Promise.all(Array.from({ length: 20 }, () => remember(content)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const outcomes = replies.map((r) => r.body.outcome);
    expect(outcomes.filter((o) => o === 'ADDED')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'REINFORCED')).toHaveLength(19);
    const added = replies.find((r) => r.body.outcome === 'ADDED')!.body.eventId;
    expect(new Set(replies.map((r) => r.body.eventId ?? r.body.reinforcedEventId))).toEqual(
      new Set([added]),
    );
    const all = await events();
    expect(all.length).toBe(before + 1);
    expect(all.find((e) => e.id === added)!.weight.mentionCount).toBe(20);
  });
});
