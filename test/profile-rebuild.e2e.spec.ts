import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coreProjectionDefinition,
  createCoreProjection,
  createProjector,
  rebuildProjection,
} from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { eventually } from './support/processes.ts';

/*
 * MM-GEN-7: the profile has its own log, and its views are projections a replay rebuilds
 * exactly. Profiles are written every way they can be — settings, an agreed proposal, an
 * expired one, an explicit remember, maintenance — then the read model is built again from
 * position 0, beside the live one and through the operator's rebuild.
 */
describe(`profiles after a rebuild from position 0 (${describeBackend()})`, () => {
  let t: TestNode;
  let before: Record<string, unknown>;
  const get = async (url: string) => (await t.request('GET', url)).body;

  beforeAll(async () => {
    t = await startTestNode('profile_rebuild');
    const say = (turnId: string, user: string) =>
      t.request('POST', '/v1/spaces/home/turns', {
        turnId,
        threadId: 'chat',
        messages: [
          { role: 'user', content: user },
          { role: 'assistant', content: 'Noted.' },
        ],
      });
    await t.request('PUT', '/v1/profiles/carol');
    await t.request('PUT', '/v1/spaces/home/settings', { profileId: 'carol' });
    await t.request('PATCH', '/v1/profiles/carol', {
      field: 'homeCity',
      value: 'Harbin',
      expectedRevision: null,
    });
    await t.request('PATCH', '/v1/profiles/carol', {
      field: 'standingInstructions',
      value: Array.from({ length: 45 }, () => 'Cite your sources.').join(' '),
      expectedRevision: null,
    });
    await say('t1', 'Hello.');
    const agreed = await t.request('POST', '/v1/spaces/home/threads/chat/remember', {
      content: "I'm on a trip to Beijing this week.",
    });
    expect(agreed.body.outcome).toBe('PROFILE_PROPOSED');
    await say('t2', "I'm in Beijing for work.");
    await say('t3', 'Yes, save it.');
    const status = async (proposalId: string) =>
      (
        (await get('/v1/profiles/carol/proposals')).proposals as {
          proposalId: string;
          status: string;
        }[]
      ).find((x) => x.proposalId === proposalId)?.status;
    // A person answers before the next question: the consent is read first.
    await eventually(
      'the yes applied',
      async () => (await status(agreed.body.profile.proposalId)) === 'applied',
    );
    const dropped = await t.request('POST', '/v1/spaces/home/threads/chat/profile/proposals', {
      field: 'reasoningLanguage',
      value: 'English',
    });
    await say('t4', 'Think it over.');
    await say('t5', 'What is on my calendar?');
    await eventually(
      'the topic change read',
      async () => (await status(dropped.body.proposal.proposalId)) === 'expired',
    );
    await t.request('POST', '/v1/spaces/home/threads/chat/remember', {
      content: 'Call me Carol.',
      userExplicit: true,
    });
    await eventually('the explicit change and maintenance recorded', async () => {
      const p = await get('/v1/profiles/carol');
      return (
        p.fields.userPreferredName.value === 'Carol' && p.maintenance.last?.outcome === 'compressed'
      );
    });
    await t.node.consolidator!.stop();
    const head = await t.node.log.headPosition();
    while ((await t.node.projector!.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    before = await dumpReadModel(t.node.database.db, await t.node.readModel.get());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the live read model holds what was written every way', async () => {
    expect(before.spaces).toEqual([
      expect.objectContaining({ space_id: 'home', profile_id: 'carol' }),
    ]);
    const sources = (before.profile_history as { source: string }[]).map((h) => h.source);
    expect(new Set(sources)).toEqual(
      new Set(['settings', 'agent_tool', 'user_explicit', 'maintenance']),
    );
    expect((before.profile_proposals as { status: string }[]).map((p) => p.status).sort()).toEqual([
      'applied',
      'expired',
    ]);
  });

  it('a projection from position 0 reproduces profiles, history and proposals exactly', async () => {
    const db = t.node.database.db;
    const head = await t.node.log.headPosition();
    const fresh = createProjector({
      db,
      log: t.node.log,
      schema: 'rm_profiles_from_zero',
      projection: createCoreProjection(),
    });
    while ((await fresh.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    expect(await dumpReadModel(db, 'rm_profiles_from_zero')).toEqual(before);
  });

  it("the operator's rebuild switches reads to a version that answers the same", async () => {
    const profile = await get('/v1/profiles/carol');
    const history = await get('/v1/profiles/carol/history?limit=100');
    await t.node.projector!.stop();
    const result = await rebuildProjection({
      db: t.node.database.db,
      log: t.node.log,
      base: t.node.config.STRATAGATE_READ_MODEL_SCHEMA,
      definition: coreProjectionDefinition,
      rules: {},
      batchSize: 16,
      drainMs: 100,
    });
    expect(result.generation).toBe(2);
    expect(await dumpReadModel(t.node.database.db, result.liveSchema)).toEqual(before);
    await eventually(
      'reads on the new version',
      async () => (await t.node.readModel.get()) === result.liveSchema,
    );
    expect(await get('/v1/profiles/carol')).toEqual(profile);
    expect(await get('/v1/profiles/carol/history?limit=100')).toEqual(history);
  });
});
