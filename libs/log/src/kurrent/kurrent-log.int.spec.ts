import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { freshSpace, makeRecord, numbered, range } from '../contract/fixtures.ts';
import { testMessageLog } from '../message-log.contract.ts';
import { recordEventId } from './kurrent-ids.ts';
import { createKurrentLog, kurrentLogCapabilities } from './kurrent-log.ts';
import { KURRENT_RECORD_FORMAT } from './kurrent-records.ts';
import { describeWithKurrent, freshStreamPrefix } from './kurrent.test-support.ts';

// One client per file against KURRENTDB_URL (or a testcontainers server); one stream prefix per
// case, so every case sees an empty log ($all reads filter on the prefix).
describeWithKurrent('kurrentdb message log', (connect) => {
  const freshLog = async (client?: KurrentDBClient) =>
    createKurrentLog({ client: client ?? (await connect()), streamPrefix: freshStreamPrefix() });

  testMessageLog(
    'kurrentdb (@kurrent/kurrentdb-client)',
    async () => ({ log: await freshLog(), teardown: async () => {} }),
    { capabilities: kurrentLogCapabilities },
  );

  describe('kurrentdb log specifics', () => {
    it('writes one JSON event per record to the space stream, with the derived event id', async () => {
      const client = await connect();
      const log = await freshLog(client);
      try {
        const space = freshSpace();
        const records = [
          makeRecord(space, { n: 1 }),
          makeRecord(space, { n: 2 }, { idempotencyKey: 'k' }),
        ];
        await log.append(space, records);

        const raw = [];
        for await (const e of client.readStream(log.streamName(space))) raw.push(e.event);
        expect(raw.map((e) => e?.id)).toEqual(records.map((r) => recordEventId(r.metadata)));
        expect(raw.map((e) => e?.revision)).toEqual([0n, 1n]);
        expect(raw[0]?.isJson).toBe(true);
        expect(raw[0]?.data).toEqual({ n: 1 });
        expect(raw[1]?.metadata).toMatchObject({
          format: KURRENT_RECORD_FORMAT,
          record: records[1]?.metadata,
        });
      } finally {
        await log.close();
      }
    });

    it('readSpace and readAll agree on positions: commit positions, increasing', async () => {
      const log = await freshLog();
      try {
        const [a, b] = [freshSpace(), freshSpace()];
        await log.append(a, numbered(a, 2));
        await log.append(b, numbered(b, 2));
        const bySpace = [...(await log.readSpace(a, 0, 10)), ...(await log.readSpace(b, 0, 10))];
        const all = await log.readAll(0, 10);
        expect(all).toHaveLength(4);
        expect([...all].sort((x, y) => x.position - y.position)).toEqual(all);
        expect(new Set(all.map((r) => r.position))).toEqual(
          new Set(bySpace.map((r) => r.position)),
        );
      } finally {
        await log.close();
      }
    });

    it('two log instances (as two processes) racing one key: one appended, the rest duplicate', async () => {
      const client = await connect();
      const one = await freshLog(client);
      const two = await createKurrentLog({ client, streamPrefix: one.streamPrefix });
      try {
        const space = freshSpace();
        const results = await Promise.all(
          range(1, 10).map((i) =>
            (i % 2 ? one : two).append(space, [
              makeRecord(space, { i }, { idempotencyKey: 'race' }),
            ]),
          ),
        );
        expect(results.filter((r) => r.status === 'appended')).toHaveLength(1);
        expect(await two.spaceVersion(space)).toBe(1);
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
});
