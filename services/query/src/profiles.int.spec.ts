import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceRef } from '@stratagate/domain';
import { configureSpace, recordTurn, type IngestContext } from '@stratagate/ingest';
import { startTestNode, type TestNode } from '@stratagate/runtime/testing';
import { describeBackend } from '@stratagate/store/testing';
import { queryContext, type QueryContext } from './context.ts';
import { catchUpReads } from './gate.ts';
import { proposeProfileChange } from './profile-proposals.ts';
import {
  createProfile,
  editProfileField,
  getProfile,
  listProfileHistory,
  listProfileProposals,
} from './profiles.ts';
import { assembleRecall } from './recall.ts';
import { rememberStatement } from './remember.ts';

/*
 * The profile operations called as functions, without Fastify (ADR 0038, ADR 0050): profiles by
 * id in a tenant, one audited field per change, spaces bound to a profile, consent decided by
 * the consolidator from the user's next message, and remember writing to the bound profile.
 */

const A = 'tenant-a';
const B = 'tenant-b';
const alice = { tenantId: A, profileId: 'alice' };
const aliceChat: SpaceRef = { tenantId: A, spaceId: 'alice-chat' };

describe(`profile use cases, called directly (${describeBackend()})`, () => {
  let t: TestNode;
  let ctx: () => Promise<QueryContext>;
  let ingest: IngestContext;
  let turns = 0;
  const say = (space: SpaceRef, threadId: string, user: string, assistant = 'Noted.') =>
    recordTurn(ingest, space, {
      turnId: `turn-${++turns}`,
      threadId,
      occurredAt: new Date(Date.UTC(2026, 0, 5, 9, turns)).toISOString(),
      messages: [
        { role: 'user', content: user },
        { role: 'assistant', content: assistant },
      ],
    });
  /** Recall once the space's records are projected (turns answer once durable). */
  const recall = async (space: SpaceRef) => {
    await catchUpReads(await ctx(), space);
    return assembleRecall(await ctx(), space, {
      threadId: 'weather',
      message: 'What will the weather be like tomorrow?',
    });
  };
  const edit = async (field: 'homeCity' | 'currentCity', value: string, revision: string | null) =>
    editProfileField(await ctx(), alice, {
      field,
      value,
      expectedRevision: revision,
      source: 'settings',
    });

  beforeAll(async () => {
    t = await startTestNode('profile_use_cases');
    const services = t.node.query!;
    ctx = () => queryContext(services);
    ingest = { log: t.node.log, writer: services.writer, now: services.now };
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('default exists empty in every tenant; another profile is not found until its tenant creates it', async () => {
    for (const tenantId of [A, B]) {
      expect(await getProfile(await ctx(), { tenantId, profileId: 'default' })).toMatchObject({
        profileId: 'default',
        revision: 0,
        totalChars: 0,
        text: '',
        pendingProposals: [],
      });
    }
    await expect(getProfile(await ctx(), alice)).rejects.toMatchObject({
      status: 404,
      code: 'profile_not_found',
    });
    expect(await createProfile(await ctx(), alice)).toEqual({ profileId: 'alice', created: true });
    expect(await createProfile(await ctx(), alice)).toEqual({ profileId: 'alice', created: false });
    expect((await getProfile(await ctx(), alice)).revision).toBe(0);
    // The same id in another tenant is another profile, and it was never created.
    await expect(getProfile(await ctx(), { ...alice, tenantId: B })).rejects.toMatchObject({
      code: 'profile_not_found',
    });
    await expect(
      listProfileHistory(await ctx(), { ...alice, tenantId: B }, { limit: 10, offset: 0 }),
    ).rejects.toMatchObject({ code: 'profile_not_found' });
  });

  it('one field per change with an audit row; a stale revision or value is a conflict that writes nothing', async () => {
    const first = await edit('homeCity', 'Harbin', null);
    expect(first).toMatchObject({
      field: 'homeCity',
      value: 'Harbin',
      oldValue: '',
      modified: true,
      profileRevision: 1,
    });
    const revision = first.revision!;
    const head = await t.node.log.headPosition();

    await expect(edit('homeCity', 'Shenyang', null)).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
      details: { conflict: true, field: 'homeCity', revision, value: 'Harbin' },
    });
    await expect(
      editProfileField(await ctx(), alice, {
        field: 'homeCity',
        value: 'Shenyang',
        expectedRevision: revision,
        expectedValue: 'Dalian',
        source: 'settings',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'conflict' });
    // The same value again changes nothing and records nothing.
    expect(await edit('homeCity', ' Harbin ', revision)).toMatchObject({
      modified: false,
      revision,
      position: null,
    });
    expect(await t.node.log.headPosition()).toBe(head);

    const history = await listProfileHistory(await ctx(), alice, { limit: 10, offset: 0 });
    expect(history.changes).toEqual([
      expect.objectContaining({
        changeId: revision,
        revision: 1,
        field: 'homeCity',
        oldValue: '',
        newValue: 'Harbin',
        source: 'settings',
        sourceMessageId: null,
      }),
    ]);
  });

  it('a space bound to a profile recalls it first; no other space or tenant sees it', async () => {
    expect((await edit('currentCity', 'Beijing', null)).modified).toBe(true);
    await expect(
      configureSpace(ingest, { tenantId: B, spaceId: 'alice-chat' }, { profileId: 'alice' }),
    ).rejects.toMatchObject({ status: 404, code: 'profile_not_found' });
    await configureSpace(ingest, aliceChat, { profileId: 'alice' });
    await configureSpace(ingest, { tenantId: B, spaceId: 'alice-chat' }, { blockSize: 12 });
    await configureSpace(ingest, { tenantId: A, spaceId: 'unbound' }, { blockSize: 12 });
    await say(aliceChat, 'weather', 'Hello.');

    const bound = await recall(aliceChat);
    expect(bound.profile).toMatchObject({
      profileId: 'alice',
      fields: { homeCity: 'Harbin', currentCity: 'Beijing' },
    });
    expect(bound.contextText.startsWith('# Resident profile')).toBe(true);
    // Harbin is home, the user is in Beijing: a local task uses Beijing, and Harbin stays.
    expect(bound.contextText).toContain('if it names none, Beijing (current city)');
    expect(bound.contextText).toContain('Home city: Harbin');

    for (const other of [
      { tenantId: B, spaceId: 'alice-chat' },
      { tenantId: A, spaceId: 'unbound' },
    ]) {
      await say(other, 'weather', 'Hello.');
      const elsewhere = await recall(other);
      expect(elsewhere.profile).toBeNull();
      expect(JSON.stringify(elsewhere)).not.toMatch(/Harbin|Beijing/);
    }
  });

  it('an inferred change is proposed, and "同意" as the next user message applies exactly it', async () => {
    const proposed = await proposeProfileChange(await ctx(), aliceChat, {
      threadId: 'weather',
      field: 'preferredLanguage',
      value: '中文',
      reason: 'The user writes in Chinese.',
    });
    expect(proposed).toMatchObject({
      profileId: 'alice',
      status: 'proposed',
      proposal: { field: 'preferredLanguage', value: '中文', status: 'pending' },
    });
    const id = proposed.proposal!.proposalId;
    await say(aliceChat, 'weather', '明天天气怎么样？', '要我以后都用中文回答吗？');
    await say(aliceChat, 'weather', '同意');

    const deadline = Date.now() + 60_000;
    let decided = (await listProfileProposals(await ctx(), alice, { limit: 10, offset: 0 }))
      .proposals[0];
    while (decided?.status === 'pending' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      decided = (await listProfileProposals(await ctx(), alice, { limit: 10, offset: 0 }))
        .proposals[0];
    }
    expect(decided).toMatchObject({ proposalId: id, status: 'applied', resolution: 'agreed' });
    const profile = await getProfile(await ctx(), alice);
    expect(profile.fields.preferredLanguage.value).toBe('中文');
    const [change] = (await listProfileHistory(await ctx(), alice, { limit: 1, offset: 0 }))
      .changes;
    expect(change).toMatchObject({
      field: 'preferredLanguage',
      source: 'agent_tool',
      proposalId: id,
      sourceMessageId: decided!.answerMessageId,
      spaceId: 'alice-chat',
      threadId: 'weather',
    });
  });

  it('remember in a bound space writes to that profile, never to default', async () => {
    const reply = await rememberStatement(await ctx(), aliceChat, {
      threadId: 'weather',
      content: 'Call me Ali.',
      topK: 5,
      userExplicit: true,
    });
    expect(reply).toMatchObject({
      destination: 'profile',
      outcome: 'PROFILE_UPDATED',
      eventId: null,
      profile: { profileId: 'alice', field: 'userPreferredName', value: 'Ali', status: 'applied' },
    });
    expect((await getProfile(await ctx(), alice)).fields.userPreferredName.value).toBe('Ali');
    expect(
      (await getProfile(await ctx(), { tenantId: A, profileId: 'default' })).fields
        .userPreferredName.value,
    ).toBe('');
    const [change] = (await listProfileHistory(await ctx(), alice, { limit: 1, offset: 0 }))
      .changes;
    expect(change).toMatchObject({ source: 'user_explicit', spaceId: 'alice-chat' });
  });
});
