import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideRecordTurn, type SpaceRef } from '@stratagate/domain';
import { SpaceWriterService, newId } from '@stratagate/writer';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { readCheckpoint, storeCheckpoint } from './checkpoints.ts';
import { coreProjectionDefinition, createCoreProjection } from './core.projection.ts';
import { versionRulesOf } from './projection.ts';
import {
  abandonBuild,
  claimBuild,
  finishDrain,
  rebuildProjection,
  RebuildAborted,
  trySwitch,
  type RebuildProgress,
} from './rebuild.ts';
import { createProjector, type Projector } from './runner.ts';
import {
  buildingTarget,
  createLiveSchema,
  ensureProjectionVersion,
  liveTarget,
  migrateProjectionControl,
  readProjectionVersion,
  RebuildSuperseded,
  schemaExists,
  TargetMoved,
  updateProjectionVersion,
} from './versions.ts';

const A = { defaultDecayLambda: 0.3 };
const B = { defaultDecayLambda: 0.9 };
const rulesA = versionRulesOf(coreProjectionDefinition, A);
const rulesB = versionRulesOf(coreProjectionDefinition, B);
const plain: SpaceRef = { tenantId: 't', spaceId: 'plain' };
const configured: SpaceRef = { tenantId: 't', spaceId: 'configured' };

describe(`projection versions: control table and switch (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let writer: SpaceWriterService;
  let turns = 0;

  async function post(space: SpaceRef, n: number) {
    for (let i = 0; i < n; i++) {
      turns += 1;
      await writer.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, (state) =>
        decideRecordTurn(state, {
          turnId: `turn-${turns}`,
          threadId: 'main',
          occurredAt: '2023-05-01T10:00:00Z',
          messages: [{ role: 'user', content: `Message ${turns} about pottery.`, toolCalls: [] }],
          newMessageId: () => newId('msg'),
          newBlockId: () => newId('blk'),
        }),
      );
    }
  }

  /** On a shared server the tail trails the head until older transactions anywhere finish. */
  async function toHead(projector: Projector) {
    const head = await log.headPosition();
    while ((await projector.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    return head;
  }

  const spaceRows = async (schema: string) =>
    (await dumpReadModel(database.db, schema)).spaces as {
      space_id: string;
      decay_lambda: number;
    }[];

  beforeAll(async () => {
    database = await openTestDatabase('rebuild_int');
    log = await createPostgresLog(database);
    writer = new SpaceWriterService(log);
    await writer.write(configured, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 3, decayLambda: 0.5 } },
    ]);
    await post(plain, 7);
    await post(configured, 4);
    await migrateProjectionControl(database.db);
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('a fresh database starts at the base schema, generation 1, with the first rules it saw', async () => {
    const first = await ensureProjectionVersion(database.db, 'rm_fresh', 'core', rulesA);
    expect(first).toMatchObject({
      generation: 1,
      liveSchema: 'rm_fresh',
      liveRules: rulesA,
      state: 'live',
      buildingSchema: null,
    });
    // Later starts with other configured rules change nothing: only a rebuild does.
    const again = await ensureProjectionVersion(database.db, 'rm_fresh', 'core', rulesB);
    expect(again.liveRules).toEqual(rulesA);
  });

  it('switches reads in one step only once the new version has caught up; the live projector continues it from its own checkpoint', async () => {
    const base = 'rm_sw';
    await ensureProjectionVersion(database.db, base, 'core', rulesA);
    const live = createProjector({
      db: database.db,
      log,
      target: liveTarget({ base, definition: coreProjectionDefinition }),
      batchSize: 4,
    });
    await toHead(live);
    const readers = createLiveSchema({
      db: database.db,
      base,
      name: 'core',
      refreshMs: 50,
      initial: base,
    });

    const claim = await claimBuild(database.db, base, 'core', rulesB, 'builder-1', {
      staleMs: 30_000,
      takeOver: false,
    });
    expect(claim).toEqual({ schema: 'rm_sw_r2', generation: 2, resumed: false, restarted: false });
    const projection = createCoreProjection(B);
    const building = createProjector({
      db: database.db,
      log,
      target: buildingTarget({
        base,
        name: 'core',
        schema: claim.schema,
        projection,
        builderId: 'builder-1',
      }),
      batchSize: 4,
    });
    await projection.migrate(database.db, claim.schema);

    // Nothing built yet: the switch is refused and nothing changes.
    expect(await trySwitch(database.db, base, 'core', claim.schema, 'builder-1')).toMatchObject({
      switched: false,
    });
    expect((await readProjectionVersion(database.db, base, 'core'))!.liveSchema).toBe(base);

    // Live traffic continues: the live projector keeps writing the old version meanwhile.
    await post(plain, 2);
    await toHead(live);
    const head = await toHead(building);
    const switched = await trySwitch(database.db, base, 'core', claim.schema, 'builder-1');
    expect(switched).toEqual({ switched: true, retired: base, position: head });
    const row = (await readProjectionVersion(database.db, base, 'core'))!;
    expect(row).toMatchObject({
      generation: 2,
      liveSchema: 'rm_sw_r2',
      liveRules: rulesB,
      state: 'draining',
      retiredSchema: base,
      buildingSchema: null,
      builderId: null,
    });
    // A batch of the old target that was about to commit now rolls back.
    await expect(
      database.db.transaction().execute((trx) =>
        liveTarget({ base, definition: coreProjectionDefinition }).confirm(trx, {
          schema: base,
          projection,
        }),
      ),
    ).rejects.toBeInstanceOf(TargetMoved);
    // The builder's batches stop too.
    await expect(building.catchUp()).resolves.toBe(head);
    await post(plain, 1);
    await expect(toHead(building)).rejects.toBeInstanceOf(RebuildSuperseded);

    // The live projector follows the switch and continues from the new schema's checkpoint,
    // applying the new rules; the old version stays where it was at the switch.
    await post(plain, 3);
    const end = await toHead(live);
    expect(await readCheckpoint(database.db, 'rm_sw_r2', 'core')).toBe(end);
    expect(await readCheckpoint(database.db, base, 'core')).toBe(head);
    const fresh = createProjector({
      db: database.db,
      log,
      schema: 'rm_sw_fresh_b',
      projection: createCoreProjection(B),
    });
    await toHead(fresh);
    expect(await dumpReadModel(database.db, 'rm_sw_r2')).toEqual(
      await dumpReadModel(database.db, 'rm_sw_fresh_b'),
    );
    expect(await spaceRows('rm_sw_r2')).toEqual([
      expect.objectContaining({ space_id: 'configured', decay_lambda: 0.5 }),
      expect.objectContaining({ space_id: 'plain', decay_lambda: 0.9 }),
    ]);
    expect(await spaceRows(base)).toEqual([
      expect.objectContaining({ space_id: 'configured', decay_lambda: 0.5 }),
      expect.objectContaining({ space_id: 'plain', decay_lambda: 0.3 }),
    ]);

    // Readers see the switch within their refresh interval.
    await new Promise((r) => setTimeout(r, 60));
    expect(await readers.get()).toBe('rm_sw_r2');

    // The old schema goes after the drain; the row is live again.
    expect(await finishDrain(database.db, base, 'core', base, 0)).toBe(base);
    expect(await schemaExists(database.db, base)).toBe(false);
    expect(await readProjectionVersion(database.db, base, 'core')).toMatchObject({
      state: 'live',
      retiredSchema: null,
      liveSchema: 'rm_sw_r2',
    });
    // A second drain (a rerun after a crash) finds nothing to do.
    expect(await finishDrain(database.db, base, 'core', base, 0)).toBeNull();
  });

  it('a build is not taken from a live builder; a stale one is resumed with the same rules and started over with others', async () => {
    const base = 'rm_claim';
    await ensureProjectionVersion(database.db, base, 'core', rulesA);
    const opts = { staleMs: 30_000, takeOver: false };
    const first = await claimBuild(database.db, base, 'core', rulesB, 'b1', opts);
    const projection = createCoreProjection(B);
    await projection.migrate(database.db, first.schema);
    const partial = createProjector({
      db: database.db,
      log,
      target: buildingTarget({
        base,
        name: 'core',
        schema: first.schema,
        projection,
        builderId: 'b1',
      }),
      batchSize: 5,
      onBatch: () => {
        throw new Error('crash after the first batch');
      },
    });
    await expect(partial.catchUp()).rejects.toThrow('crash');
    const reached = await readCheckpoint(database.db, first.schema, 'core');
    expect(reached).toBeGreaterThan(0);

    await expect(claimBuild(database.db, base, 'core', rulesB, 'b2', opts)).rejects.toThrow(
      /is running/,
    );
    // Silent for longer than staleMs: resumed where its checkpoint says, rows kept.
    const resumed = await claimBuild(database.db, base, 'core', rulesB, 'b2', {
      staleMs: 0,
      takeOver: false,
    });
    expect(resumed).toEqual({
      schema: first.schema,
      generation: 2,
      resumed: true,
      restarted: false,
    });
    expect(await readCheckpoint(database.db, first.schema, 'core')).toBe(reached);
    // The first builder, should it wake up, cannot commit any more.
    await expect(partial.catchUp()).rejects.toBeInstanceOf(RebuildSuperseded);

    // Other rules: the rows on record are worthless, the build starts over.
    const other = versionRulesOf(coreProjectionDefinition, { defaultDecayLambda: 1.5 });
    const restarted = await claimBuild(database.db, base, 'core', other, 'b3', {
      staleMs: 30_000,
      takeOver: true,
    });
    expect(restarted).toMatchObject({ schema: first.schema, resumed: false, restarted: true });
    expect(await schemaExists(database.db, first.schema)).toBe(false);
    expect((await readProjectionVersion(database.db, base, 'core'))!.buildingRules).toEqual(other);

    expect(await abandonBuild(database.db, base, 'core')).toBe(first.schema);
    expect(await readProjectionVersion(database.db, base, 'core')).toMatchObject({
      state: 'live',
      liveSchema: base,
      buildingSchema: null,
    });
  });

  it('rebuildProjection resumes a crashed build from its checkpoint and ends equal to a fresh build', async () => {
    const base = 'rm_full';
    await ensureProjectionVersion(database.db, base, 'core', rulesA);
    const live = createProjector({
      db: database.db,
      log,
      target: liveTarget({ base, definition: coreProjectionDefinition }),
    });
    await toHead(live);
    // Dies right after its first committed batch, leaving the control row claimed.
    const dead = new AbortController();
    dead.abort();
    await expect(
      rebuildProjection({
        db: database.db,
        log,
        base,
        definition: coreProjectionDefinition,
        rules: B,
        batchSize: 3,
        builderId: 'crashed',
        signal: dead.signal,
      }),
    ).rejects.toBeInstanceOf(RebuildAborted);
    const row = (await readProjectionVersion(database.db, base, 'core'))!;
    expect(row).toMatchObject({
      state: 'building',
      builderId: 'crashed',
      buildingSchema: 'rm_full_r2',
    });
    const reached = await readCheckpoint(database.db, 'rm_full_r2', 'core');
    expect(reached).toBeGreaterThan(0);

    await post(plain, 2);
    const progress: RebuildProgress[] = [];
    const result = await rebuildProjection({
      db: database.db,
      log,
      base,
      definition: coreProjectionDefinition,
      rules: B,
      batchSize: 3,
      staleMs: 0,
      drainMs: 0,
      onProgress: (p) => progress.push(p),
    });
    expect(result).toMatchObject({
      liveSchema: 'rm_full_r2',
      generation: 2,
      resumedFrom: reached,
      restarted: false,
      droppedSchema: base,
      alreadyLive: false,
    });
    expect(progress.map((p) => p.phase)).toEqual(expect.arrayContaining(['draining', 'done']));
    const done = progress.at(-1)!;
    expect(done.position).toBe(result.switchedAt);
    expect(done.recordsPerSecond).toBeGreaterThan(0);
    expect(await schemaExists(database.db, base)).toBe(false);

    const end = await toHead(live);
    expect(await readCheckpoint(database.db, 'rm_full_r2', 'core')).toBe(end);
    const fresh = createProjector({
      db: database.db,
      log,
      schema: 'rm_full_fresh_b',
      projection: createCoreProjection(B),
    });
    await toHead(fresh);
    expect(await dumpReadModel(database.db, 'rm_full_r2')).toEqual(
      await dumpReadModel(database.db, 'rm_full_fresh_b'),
    );
  });

  it('a rerun after a crash between switch and drop only finishes the drop', async () => {
    const base = 'rm_drain';
    await ensureProjectionVersion(database.db, base, 'core', rulesA);
    await createCoreProjection(A).migrate(database.db, base);
    const claim = await claimBuild(database.db, base, 'core', rulesB, 'b1', {
      staleMs: 30_000,
      takeOver: false,
    });
    const projection = createCoreProjection(B);
    await projection.migrate(database.db, claim.schema);
    await toHead(
      createProjector({
        db: database.db,
        log,
        target: buildingTarget({
          base,
          name: 'core',
          schema: claim.schema,
          projection,
          builderId: 'b1',
        }),
      }),
    );
    expect(await trySwitch(database.db, base, 'core', claim.schema, 'b1')).toMatchObject({
      switched: true,
    });
    // ... and the process died before dropping.
    const result = await rebuildProjection({
      db: database.db,
      log,
      base,
      definition: coreProjectionDefinition,
      rules: B,
      drainMs: 0,
    });
    expect(result).toMatchObject({
      alreadyLive: true,
      liveSchema: 'rm_drain_r2',
      droppedSchema: base,
    });
    expect(await schemaExists(database.db, base)).toBe(false);
    expect(await readProjectionVersion(database.db, base, 'core')).toMatchObject({
      state: 'live',
      generation: 2,
    });
  });

  it.runIf(process.env.DATABASE_URL)(
    'the switch waits for a live batch in flight and sees where it committed',
    async () => {
      const base = 'rm_race';
      await ensureProjectionVersion(database.db, base, 'core', rulesA);
      const target = liveTarget({ base, definition: coreProjectionDefinition });
      const live = await target.current(database.db);
      await live.projection.migrate(database.db, base);
      const claim = await claimBuild(database.db, base, 'core', rulesB, 'b1', {
        staleMs: 30_000,
        takeOver: false,
      });
      await createCoreProjection(B).migrate(database.db, claim.schema);
      // Building and live both at 0; a live batch is between its confirm and its commit.
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      const batch = database.db.transaction().execute(async (trx) => {
        await target.confirm(trx, live);
        await storeCheckpoint(trx, base, 'core', 0, 5);
        await gate;
      });
      await new Promise((r) => setTimeout(r, 50));
      let settled = false;
      const attempt = trySwitch(database.db, base, 'core', claim.schema, 'b1').finally(() => {
        settled = true;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(settled).toBe(false);
      commit();
      await batch;
      // It saw the batch's checkpoint, so it refuses: the new version has applied less.
      expect(await attempt).toEqual({ switched: false, behind: 5 });

      // The other way round: a batch that starts while the switch holds the row waits for it
      // and then sees the switched row, so it cannot commit into the old version.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const switching = database.db.transaction().execute(async (trx) => {
        await readProjectionVersion(trx, base, 'core', 'update');
        await updateProjectionVersion(trx, base, 'core', { live_schema: claim.schema });
        await held;
      });
      await new Promise((r) => setTimeout(r, 50));
      let confirmed = false;
      const late = database.db
        .transaction()
        .execute((trx) => target.confirm(trx, live))
        // Settled into a value at once, so the rejection is never unhandled meanwhile.
        .then(
          () => 'committed',
          (error: unknown) => error,
        )
        .finally(() => {
          confirmed = true;
        });
      await new Promise((r) => setTimeout(r, 200));
      expect(confirmed).toBe(false);
      release();
      await switching;
      expect(await late).toBeInstanceOf(TargetMoved);
    },
  );
});
