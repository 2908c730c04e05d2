import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { eventually } from './support/processes.ts';

const P = '/v1/profiles';
const S = '/v1/spaces/home';

describe(`resident profile over HTTP (${describeBackend()})`, () => {
  let t: TestNode;
  let turn = 0;
  /** A finished turn of thread `chat` in space `home`. */
  const say = (user: string, assistant = 'Noted.') =>
    t.request('POST', `${S}/turns`, {
      turnId: `chat-${++turn}`,
      threadId: 'chat',
      messages: [
        { role: 'user', content: user },
        { role: 'assistant', content: assistant },
      ],
    });
  const profile = async (id = 'default') => (await t.request('GET', `${P}/${id}`)).body;
  const proposal = async (id: string) =>
    (await t.request('GET', `${P}/default/proposals`)).body.proposals.find(
      (p: { proposalId: string }) => p.proposalId === id,
    );

  beforeAll(async () => {
    t = await startTestNode('profiles');
    await say('Hello there.');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('default exists empty; another profile is 404 until created', async () => {
    const empty = await profile();
    expect(empty).toMatchObject({ profileId: 'default', revision: 0, totalChars: 0, text: '' });
    expect(empty.fields.userPreferredName).toEqual({
      value: '',
      revision: null,
      limit: 100,
      use: 'how to address the user',
    });
    const missing = await t.request('GET', `${P}/nobody`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('profile_not_found');
    expect((await t.request('PUT', `${P}/nobody`)).status).toBe(201);
    expect((await t.request('PUT', `${P}/nobody`)).status).toBe(200);
    expect((await t.request('GET', `${P}/nobody`)).status).toBe(200);
  });

  it('a change writes one audit row; a stale revision is 409 conflict and adds none', async () => {
    const first = await t.request('PATCH', `${P}/default`, {
      field: 'preferredLanguage',
      value: 'Chinese',
      expectedRevision: null,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ modified: true, oldValue: '', value: 'Chinese' });
    const revision = first.body.revision as string;
    expect((await profile()).fields.preferredLanguage).toMatchObject({
      value: 'Chinese',
      revision,
    });

    const stale = await t.request('PATCH', `${P}/default`, {
      field: 'preferredLanguage',
      value: 'English',
      expectedRevision: null,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'conflict',
      details: { conflict: true, field: 'preferredLanguage', revision, value: 'Chinese' },
    });
    const history = (await t.request('GET', `${P}/default/history`)).body;
    expect(history.changes).toHaveLength(1);
    expect(history.changes[0]).toMatchObject({
      changeId: revision,
      revision: 1,
      field: 'preferredLanguage',
      oldValue: '',
      newValue: 'Chinese',
      source: 'settings',
      sourceMessageId: null,
    });
    expect((await profile()).fields.preferredLanguage.value).toBe('Chinese');
  });

  it('over a limit is 400 naming the field; unknown fields and fields are refused', async () => {
    const long = await t.request('PATCH', `${P}/default`, {
      field: 'userPreferredName',
      value: 'x'.repeat(101),
      expectedRevision: null,
    });
    expect(long.status).toBe(400);
    expect(long.body.error.issues[0]).toMatchObject({ path: '/value' });
    expect(long.body.error.issues[0].message).toMatch(/userPreferredName .* at most 100 .* 101/);
    const unknown = await t.request('PATCH', `${P}/default`, {
      field: 'favouriteColour',
      value: 'blue',
      expectedRevision: null,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues[0].path).toBe('/field');
    const extra = await t.request('PATCH', `${P}/default`, {
      field: 'homeCity',
      value: 'Harbin',
      expectedRevision: null,
      user_id: 'u1',
    });
    expect(extra.status).toBe(400);
    expect((await t.request('GET', `${P}/default/history`)).body.changes).toHaveLength(1);
  });

  it('the total over 6,000 is 400 profile_too_long, naming the field', async () => {
    await t.request('PUT', `${P}/big`);
    const fill = {
      userBackground: 1500,
      persistentNotes: 1200,
      longTermGoals: 1000,
      standingInstructions: 1000,
      defaultLocation: 200,
      homeCity: 100,
      currentCity: 100,
    };
    for (const [field, n] of Object.entries(fill)) {
      const res = await t.request('PATCH', `${P}/big`, {
        field,
        value: 'a'.repeat(n),
        expectedRevision: null,
      });
      expect(res.status).toBe(200);
    }
    const over = await t.request('PATCH', `${P}/big`, {
      field: 'responsePreferences',
      value: 'c'.repeat(1000),
      expectedRevision: null,
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({
      code: 'profile_too_long',
      details: { field: 'responsePreferences', limit: 6000, length: 6100 },
    });
    expect(over.body.error.message).toMatch(/responsePreferences/);
  });

  it('consent: a proposal, then "agree" as the next user message applies exactly it', async () => {
    const res = await t.request('POST', `${S}/threads/chat/profile/proposals`, {
      field: 'currentCity',
      value: 'Beijing',
      reason: 'The user said they are in Beijing this week.',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      profileId: 'default',
      status: 'proposed',
      proposal: { field: 'currentCity', value: 'Beijing', status: 'pending', afterThreadTurn: 2 },
    });
    const id = res.body.proposal.proposalId as string;
    expect(
      (await profile()).pendingProposals.map((p: { proposalId: string }) => p.proposalId),
    ).toEqual([id]);
    // The turn the proposal was made in, then the user's answer.
    await say("I'm in Beijing this week.", 'Shall I set your current city to Beijing?');
    await say('Agree.');
    const decided = await eventually('the proposal decided', async () => {
      const p = await proposal(id);
      return p.status !== 'pending' && p;
    });
    expect(decided).toMatchObject({ status: 'applied', resolution: 'agreed' });
    const now = await profile();
    expect(now.fields.currentCity.value).toBe('Beijing');
    expect(now.pendingProposals).toEqual([]);
    const change = (await t.request('GET', `${P}/default/history?field=currentCity`)).body
      .changes[0];
    expect(change).toMatchObject({
      newValue: 'Beijing',
      source: 'agent_tool',
      sourceMessageId: decided.answerMessageId,
      spaceId: 'home',
      threadId: 'chat',
      proposalId: id,
    });
  });

  it('consent: a topic change as the next message expires it; nothing changes', async () => {
    const res = await t.request('POST', `${S}/threads/chat/profile/proposals`, {
      field: 'homeCity',
      value: 'Beijing',
    });
    const id = res.body.proposal.proposalId as string;
    await say('I am on a trip.', 'Should I also save Beijing as your home city?');
    await say('What will the weather be like tomorrow?');
    const decided = await eventually('the proposal decided', async () => {
      const p = await proposal(id);
      return p.status !== 'pending' && p;
    });
    expect(decided).toMatchObject({ status: 'expired', resolution: 'not_agreed' });
    expect((await profile()).fields.homeCity.value).toBe('');
  });

  it('another edit expires a pending proposal, which a later "yes" can no longer apply', async () => {
    const res = await t.request('POST', `${S}/threads/chat/profile/proposals`, {
      field: 'userPreferredName',
      value: 'Caz',
    });
    const id = res.body.proposal.proposalId as string;
    const edit = await t.request('PATCH', `${P}/default`, {
      field: 'reasoningLanguage',
      value: 'English',
      expectedRevision: null,
    });
    expect(edit.body.expiredProposalIds).toEqual([id]);
    expect(await proposal(id)).toMatchObject({ status: 'expired', resolution: 'other_edit' });
    await say('Call me whatever you like.', 'Shall I call you Caz?');
    await say('yes');
    await t.settle('home');
    expect((await profile()).fields.userPreferredName.value).toBe('');
  });

  it('binds a space to a created profile only', async () => {
    const bad = await t.request('PUT', `${S}/settings`, { profileId: 'ghost' });
    expect(bad.status).toBe(404);
    expect(bad.body.error.code).toBe('profile_not_found');
    const ok = await t.request('PUT', `/v1/spaces/other/settings`, { profileId: 'nobody' });
    expect(ok.status).toBe(200);
    expect(ok.body.profileId).toBe('nobody');
  });

  it('two profiles in one tenant, two spaces bound to them: each recall shows only its own', async () => {
    for (const id of ['alice', 'bob'])
      expect((await t.request('PUT', `${P}/${id}`)).status).toBe(201);
    const set = (id: string, field: string, value: string) =>
      t.request('PATCH', `${P}/${id}`, { field, value, expectedRevision: null });
    await set('alice', 'userPreferredName', 'Alice');
    await set('alice', 'homeCity', 'Harbin');
    await set('alice', 'currentCity', 'Beijing');
    await set('bob', 'userPreferredName', 'Bob');
    await t.request('PUT', '/v1/spaces/alice-chat/settings', { profileId: 'alice' });
    await t.request('PUT', '/v1/spaces/bob-chat/settings', { profileId: 'bob' });
    await t.request('PUT', '/v1/spaces/nobody-chat/settings', { blockSize: 12 });
    const recall = async (space: string) => {
      // Settings answer once durable; recall reads the projected space.
      await t.settle(space);
      const res = await t.request('POST', `/v1/spaces/${space}/threads/t1/recall`, {
        message: 'What will the weather be like today?',
      });
      expect(res.status).toBe(200);
      return res.body;
    };

    const a = await recall('alice-chat');
    expect(a.profile).toMatchObject({
      profileId: 'alice',
      fields: { userPreferredName: 'Alice', homeCity: 'Harbin', currentCity: 'Beijing' },
    });
    // The profile comes first, outside the budgets; the Harbin/Beijing rule is stated.
    expect(a.contextText.indexOf('# Resident profile')).toBe(0);
    expect(a.contextText).toContain('Address the user as: Alice');
    expect(a.contextText).toContain('if it names none, Beijing (current city)');
    expect(a.contextText).toContain('Home city: Harbin');
    expect(a.contextText).not.toContain('Bob');
    expect(a.activatedMemory.budget.limitTokens).toBe(900);

    const b = await recall('bob-chat');
    expect(b.profile).toMatchObject({ profileId: 'bob', fields: { userPreferredName: 'Bob' } });
    expect(JSON.stringify(b)).not.toContain('Alice');
    expect(JSON.stringify(b)).not.toContain('Harbin');

    // An unbound space reads `default`; an empty profile shows no section.
    expect((await recall('nobody-chat')).profile.profileId).toBe('default');
    await t.request('PUT', `${P}/empty`);
    await t.request('PUT', '/v1/spaces/empty-chat/settings', { profileId: 'empty' });
    const empty = await recall('empty-chat');
    expect(empty.profile).toBeNull();
    expect(empty.contextText.startsWith('# Memory')).toBe(true);
  });

  it("another tenant's key reaches none of these profiles", async () => {
    await t.request('PUT', `${P}/alice`);
    const mine = (await profile()).fields.preferredLanguage.value as string;
    const keyB = (await t.node.apiKeys.create('tenant-b', 'test')).key;
    const asB = (method: 'GET' | 'PUT' | 'PATCH', url: string, body?: unknown) =>
      t.request(method, url, body, keyB);
    expect((await asB('GET', `${P}/alice`)).body.error.code).toBe('profile_not_found');
    expect((await asB('GET', `${P}/alice/history`)).status).toBe(404);
    const bind = await asB('PUT', '/v1/spaces/alice-chat/settings', { profileId: 'alice' });
    expect([bind.status, bind.body.error.code]).toEqual([404, 'profile_not_found']);
    // Its own `default` is its own: empty, whatever this tenant's `default` holds.
    const own = (await asB('GET', `${P}/default`)).body;
    expect(own).toMatchObject({ profileId: 'default', revision: 0, text: '' });
    const patched = await asB('PATCH', `${P}/default`, {
      field: 'preferredLanguage',
      value: `${mine} or English`,
      expectedRevision: null,
    });
    expect(patched.status).toBe(200);
    expect((await profile()).fields.preferredLanguage.value).toBe(mine);
  });
});
