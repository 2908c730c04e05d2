import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, type TestNode } from './harness.ts';
import { tablesHolding } from './support/every-table.ts';
import { topicText } from './support/kafka-topic.ts';
import { eventually } from './support/processes.ts';
import { readModelFromZero } from './support/read-model-from-zero.ts';

// Planted words, one token each, found nowhere else: what an erasure must take from the profile.
const PENDING_SECRET = 'Zqxpendingsecret6120';
const QUOTE_SECRET = 'Vqxquotesecret3381';
const EXPIRED_SECRET = 'Wqxexpiredsecret7745';
const KEEP_SECRET = 'Yqxkeepsecret2209';
const ERASED = [PENDING_SECRET, QUOTE_SECRET, EXPIRED_SECRET];
const S = 'erase:profile';
const P = '/v1/profiles/dana';

interface Proposal {
  proposalId: string;
  status: string;
  threadId: string;
  value: string;
}
interface Change {
  field: string;
  newValue: string;
  source: string;
  sourceMessageId: string | null;
  proposalId: string | null;
}

/*
 * ADR 0046 with ADR 0050: a proposal made in a thread is sealed under that thread's key, in the
 * profile's own stream. Erasing the thread (or the space) forgets the proposal — its value, the
 * words it quotes — everywhere; a setting the user agreed to stays, without its link to the
 * erased conversation.
 */
function profileErasure(label: string, node: string, config: Record<string, string>) {
  describe(`erasure reaches the resident profile (${label})`, { timeout: 600_000 }, () => {
    let t: TestNode;
    const turns = new Map<string, number>();
    const say = async (threadId: string, user: string, assistant = 'Noted.') => {
      const n = (turns.get(threadId) ?? 0) + 1;
      turns.set(threadId, n);
      const res = await t.request('POST', `/v1/spaces/${S}/turns`, {
        turnId: `${threadId}-${n}`,
        threadId,
        messages: [
          { role: 'user', content: user },
          { role: 'assistant', content: assistant },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    };
    const propose = async (threadId: string, field: string, value: string, reason: string) => {
      const res = await t.request('POST', `/v1/spaces/${S}/threads/${threadId}/profile/proposals`, {
        field,
        value,
        reason,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.proposal.proposalId as string;
    };
    const proposals = async () =>
      (await t.request('GET', `${P}/proposals?limit=100`)).body.proposals as Proposal[];
    const statusOf = async (id: string) => (await proposals()).find((p) => p.proposalId === id);
    const history = async () =>
      (await t.request('GET', `${P}/history?limit=100`)).body.changes as Change[];
    /**
     * Every table of the read models' and the log's databases (keys, raw log rows included), and
     * on Kafka every message of the topic.
     */
    const holding = async (secret: string) => {
      const found = await tablesHolding(t.node.database.db, secret);
      if (t.node.logDatabase !== t.node.database) {
        found.push(...(await tablesHolding(t.node.logDatabase.db, secret)));
      }
      const topic = config.STRATAGATE_KAFKA_TOPIC;
      if (topic && (await topicText(t.node.kafka!.kafka, topic)).includes(secret.toLowerCase())) {
        found.push(`kafka:${topic}`);
      }
      return found;
    };
    // The table log's projector, in this process; on Kafka the settled space is what there is.
    const caughtUp = async () => {
      const projector = t.node.projector;
      if (!projector) return;
      const head = await t.node.log.headPosition();
      while ((await projector.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    };
    let pending = '';
    let agreed = '';
    let kept = '';

    beforeAll(async () => {
      t = await startTestNode(node, { config });
      expect((await t.request('PUT', P)).status).toBe(201);
      expect(
        (await t.request('PUT', `/v1/spaces/${S}/settings`, { profileId: 'dana' })).status,
      ).toBe(200);
      await t.request('PATCH', P, {
        field: 'preferredLanguage',
        value: 'Chinese',
        expectedRevision: null,
      });

      // In the thread to be erased: one proposal refused, one agreed, one left pending.
      await say('secret', 'Hello.');
      const refused = await propose(
        'secret',
        'longTermGoals',
        `Climb ${EXPIRED_SECRET}`,
        'a guess',
      );
      await say('secret', 'Hi.', 'Shall I note that goal?');
      await say('secret', 'Let me think about it.');
      await eventually(
        'the refusal read',
        async () => (await statusOf(refused))?.status === 'expired',
      );
      agreed = await propose('secret', 'homeCity', 'Harbin', `The user said: "${QUOTE_SECRET}".`);
      await say('secret', 'I moved.', 'Shall I save Harbin as your home city?');
      await say('secret', 'Yes, save it.');
      await eventually(
        'the yes applied',
        async () => (await statusOf(agreed))?.status === 'applied',
      );
      const remembered = await t.request('POST', `/v1/spaces/${S}/threads/secret/remember`, {
        content: "I'm on a trip to Beijing this week.",
        requestId: 'remember-trip',
      });
      expect(remembered.body.outcome).toBe('PROFILE_PROPOSED');
      pending = await propose(
        'secret',
        'persistentNotes',
        `Locker code ${PENDING_SECRET}`,
        `The user mentioned ${PENDING_SECRET}.`,
      );
      // In another thread: a proposal that stays.
      await say('keep', 'Good morning.');
      kept = await propose('keep', 'currentCity', 'Dalian', `Said ${KEEP_SECRET}.`);
      await t.settle(S, undefined, 300_000);
      await caughtUp();
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('finds every planted word before the erasure, in the read models only (the log is sealed)', async () => {
      for (const secret of [...ERASED, KEEP_SECRET]) {
        const found = await holding(secret);
        expect(found.length, secret).toBeGreaterThan(0);
        expect(
          found.every((table) => table.includes('.profile_')),
          secret,
        ).toBe(true);
      }
      expect((await statusOf(pending))?.status).toBe('pending');
      expect((await history()).find((c) => c.field === 'homeCity')).toMatchObject({
        newValue: 'Harbin',
        source: 'agent_tool',
        proposalId: agreed,
      });
    });

    it('erasing the thread forgets its proposals everywhere; the agreed setting stays, unlinked', async () => {
      const res = await t.request('DELETE', `/v1/spaces/${S}/threads/secret`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await t.settle(S, undefined, 300_000);
      await caughtUp();
      for (const secret of ERASED) expect(await holding(secret), secret).toEqual([]);
      expect((await holding(KEEP_SECRET)).length).toBeGreaterThan(0);

      // Only the other thread's proposal is left; nothing names the erased thread.
      expect((await proposals()).map((p) => p.proposalId)).toEqual([kept]);
      const profile = (await t.request('GET', P)).body;
      expect(profile.fields.homeCity.value).toBe('Harbin');
      expect(profile.fields.preferredLanguage.value).toBe('Chinese');
      expect(profile.fields.persistentNotes.value).toBe('');
      const changes = await history();
      expect(changes.map((c) => c.field).sort()).toEqual(['homeCity', 'preferredLanguage']);
      expect(changes.find((c) => c.field === 'homeCity')).toMatchObject({
        newValue: 'Harbin',
        source: 'agent_tool',
        sourceMessageId: null,
        proposalId: null,
      });
      expect(JSON.stringify(changes)).not.toContain('secret');

      // The log keeps the records (their ids and types), their content unreadable.
      const records = await t.node.log.readSpace(
        { tenantId: 'local', spaceId: '~profile:dana' },
        0,
        100,
      );
      const proposed = records.filter((r) => r.type === 'ProfileChangeProposed');
      expect(proposed.filter((r) => r.erased)).toHaveLength(4);
      expect(proposed.filter((r) => !r.erased)).toHaveLength(1);

      // A retried remember of the erased thread finds it erased and writes nothing.
      const retried = await t.request('POST', `/v1/spaces/${S}/threads/secret/remember`, {
        content: "I'm on a trip to Beijing this week.",
        requestId: 'remember-trip',
      });
      expect(retried.status, JSON.stringify(retried.body)).toBe(409);
      expect(retried.body.error.code).toBe('request_erased');
    });

    it('a "yes" in the thread id used again applies nothing that was erased', async () => {
      const stream = { tenantId: 'local', spaceId: '~profile:dana' };
      const before = await t.node.log.spaceVersion(stream);
      await say('secret', 'Yes, save it.');
      await t.settle(S, undefined, 300_000);
      await caughtUp();
      expect((await t.request('GET', P)).body.fields.persistentNotes.value).toBe('');
      for (const secret of ERASED) expect(await holding(secret), secret).toEqual([]);
      // Nothing was decided: the pending proposal was expired before its thread's keys went.
      expect(await t.node.log.spaceVersion(stream)).toBe(before);
    });

    // A replay of the whole log needs its global order, which a Kafka topic does not have.
    const onTable = !config.STRATAGATE_LOG_BACKEND;
    it.runIf(onTable)(
      'a rebuild from position 0 brings nothing back and equals the live read model',
      async () => {
        await caughtUp();
        const rebuilt = await readModelFromZero(t, 'rm_profile_erasure');
        const text = JSON.stringify(rebuilt).toLowerCase();
        for (const secret of ERASED)
          expect(text.includes(secret.toLowerCase()), secret).toBe(false);
        expect(text.includes(KEEP_SECRET.toLowerCase())).toBe(true);
        expect(rebuilt).toEqual(
          await dumpReadModel(t.node.database.db, await t.node.readModel.get()),
        );
      },
    );

    it("erasing the space forgets the rest of its proposals; the profile's settings stay", async () => {
      const res = await t.request('DELETE', `/v1/spaces/${S}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await caughtUp();
      expect(await holding(KEEP_SECRET)).toEqual([]);
      expect(await proposals()).toEqual([]);
      const profile = (await t.request('GET', P)).body;
      expect(profile.fields.homeCity.value).toBe('Harbin');
      expect(profile.fields.preferredLanguage.value).toBe('Chinese');
      expect(profile.fields.currentCity.value).toBe('');
    });
  });
}

profileErasure(describeBackend(), 'profile_erasure', {});

// On Kafka the topic holds only ciphertext, and the profile's rows are rebuilt from its index.
describeWithKafka(`profile erasure on the Kafka log (${describeBackend()})`, () => {
  profileErasure(`Kafka, ${describeBackend()}`, 'profile_erasure_kafka', {
    STRATAGATE_LOG_BACKEND: 'kafka',
    KAFKA_BROKERS: kafkaBrokers.join(','),
    STRATAGATE_KAFKA_TOPIC: freshTopic('profile-erasure'),
    STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
  });
});
