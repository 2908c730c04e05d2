import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decideConfigureSpace,
  decideCreateProfile,
  decideProfileEdit,
  decideProposal,
  decideProposalAnswer,
  type DecodedRecord,
} from '@stratagate/domain';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { ProfileWriter, SpaceWriterService } from '@stratagate/writer';
import { coreProjection } from './core.projection.ts';
import { recordsUpToHead } from './testing.ts';

const AT = '2026-12-06T10:00:00.000Z';
const ctx = { occurredAt: AT };

describe(`profile projection (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let records: DecodedRecord[];

  beforeAll(async () => {
    database = await openTestDatabase('profiles_projection');
    log = await createPostgresLog(database);
    const profiles = new ProfileWriter(log);
    const spaces = new SpaceWriterService(log);
    await profiles.write('t', 'alice', ctx, (s) => ({
      records: decideCreateProfile(s),
      result: null,
    }));
    await spaces.write({ tenantId: 't', spaceId: 'chat' }, ctx, (s) =>
      decideConfigureSpace(s, { profileId: 'alice' }),
    );
    const edit = (field: 'homeCity' | 'currentCity', value: string, changeId: string) =>
      profiles.write('t', 'alice', ctx, (s) => {
        const d = decideProfileEdit(s, {
          field,
          value,
          source: 'settings',
          sourceMessageId: null,
          origin: null,
          changeId,
          at: AT,
        });
        return { records: d.ok ? d.records : [], result: d };
      });
    await edit('homeCity', 'Harbin', 'pchg_1');
    await profiles.write('t', 'alice', ctx, (s) => {
      const d = decideProposal(s, {
        proposalId: 'prop_1',
        field: 'currentCity',
        value: 'Beijing',
        origin: { spaceId: 'chat', threadId: 'main', turnId: null, afterThreadTurn: 1 },
        reason: 'the user said they are in Beijing this week',
        at: AT,
      });
      return { records: d.ok ? d.records : [], result: null };
    });
    await profiles.write('t', 'alice', ctx, (s) => ({
      records: decideProposalAnswer(s, {
        proposalId: 'prop_1',
        answer: { messageId: 'msg_2', content: 'yes, save it' },
        changeId: 'pchg_2',
        at: AT,
      }),
      result: null,
    }));
    ({ records } = await recordsUpToHead(log));
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('keeps the fields, their revisions, the audit rows and the decided proposal', async () => {
    await coreProjection.migrate(database.db, 'rm_profiles');
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_profiles', records));
    const dump = await dumpReadModel(database.db, 'rm_profiles');
    expect(dump.spaces).toMatchObject([{ space_id: 'chat', profile_id: 'alice' }]);
    expect(dump.profiles).toMatchObject([
      {
        tenant_id: 't',
        profile_id: 'alice',
        created: true,
        revision: 2,
        fields: expect.objectContaining({ homeCity: 'Harbin', currentCity: 'Beijing' }),
        field_revisions: expect.objectContaining({ homeCity: 'pchg_1', currentCity: 'pchg_2' }),
        total_chars: 13,
        first_non_empty_at: AT,
      },
    ]);
    expect(
      (dump.profile_history as Record<string, unknown>[]).map((h) => [
        h.seq,
        h.field,
        h.old_value,
        h.new_value,
        h.source,
        h.source_message_id,
        h.proposal_id,
      ]),
    ).toEqual([
      [1, 'homeCity', '', 'Harbin', 'settings', null, null],
      [2, 'currentCity', '', 'Beijing', 'agent_tool', 'msg_2', 'prop_1'],
    ]);
    expect(dump.profile_proposals).toMatchObject([
      {
        proposal_id: 'prop_1',
        status: 'applied',
        resolution: 'agreed',
        answer_message_id: 'msg_2',
        after_thread_turn: 1,
      },
    ]);
  });

  it('is idempotent when a batch is delivered twice, and record by record gives the same', async () => {
    const once = await dumpReadModel(database.db, 'rm_profiles');
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_profiles', records));
    expect(await dumpReadModel(database.db, 'rm_profiles')).toEqual(once);
    await coreProjection.migrate(database.db, 'rm_profiles_single');
    for (const record of records) {
      await database.db
        .transaction()
        .execute((trx) => coreProjection.handle(trx, 'rm_profiles_single', [record]));
    }
    expect(await dumpReadModel(database.db, 'rm_profiles_single')).toEqual(once);
  });
});
