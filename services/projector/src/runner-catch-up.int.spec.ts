import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import type { Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { SpaceWriterService } from '@stratagate/writer';
import { coreProjection } from './core.projection.ts';
import { createProjector } from './runner.ts';

const onServer = Boolean(process.env.DATABASE_URL);
const onServerOnly = onServer ? '' : ' [skipped: PGlite has one session, nothing hides a record]';
const space = { tenantId: 't', spaceId: 'catch-up' };

describe(`projector: catchUp reaches the head as of the call (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;

  beforeAll(async () => {
    database = await openTestDatabase('catchup');
    log = await createPostgresLog(database);
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it.skipIf(!onServer)(
    `waits for a record another open transaction still hides${onServerOnly}`,
    async () => {
      const projector = createProjector({
        db: database.db,
        log,
        schema: 'rm_catchup',
        projection: coreProjection,
      });
      await projector.catchUp();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const holding = new Promise<void>((resolve) => (started = resolve));
      // Another session with a transaction id and no commit yet: the server-wide safe horizon
      // stays below every transaction that starts after it.
      const blocker = database.db.transaction().execute(async (trx) => {
        await sql`select txid_current()`.execute(trx);
        started();
        await gate;
      });
      try {
        await holding;
        const writer = new SpaceWriterService(log);
        await writer.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
          { type: 'SpaceConfigured', data: { blockSize: 4, decayLambda: 0.3 } },
        ]);
        const head = await log.headPosition();
        expect(await log.readAll(await projector.position(), 10)).toEqual([]); // hidden
        const caughtUp = projector.catchUp();
        setTimeout(release, 300);
        expect(await caughtUp).toBe(head);
      } finally {
        release();
        await blocker;
        await projector.stop();
      }
    },
  );
});
