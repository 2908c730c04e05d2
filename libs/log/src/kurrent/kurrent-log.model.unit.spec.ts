import { describe, expect, it } from 'vitest';
import { InvalidAppendError } from '../append-validation.ts';
import { freshSpace, makeRecord, numbered, range } from '../contract/fixtures.ts';
import { testMessageLog } from '../message-log.contract.ts';
import { WrongExpectedVersionError } from '../message-log.ts';
import { recordEventId } from './kurrent-ids.ts';
import {
  createKurrentLog,
  KurrentAppendOutcomeUnknownError,
  kurrentLogCapabilities,
  type KurrentLogOptions,
} from './kurrent-log.ts';
import { createKurrentModel, type KurrentModel } from './kurrent.model.ts';

/**
 * The adapter's own logic (key index, retries, duplicate detection, version and position mapping)
 * against an in-memory model of the client (kurrent.model.ts). This is NOT a KurrentDB server:
 * it checks the adapter under our reading of the server's behaviour. The same suite against a
 * server is kurrent-log.int.spec.ts (KURRENTDB_URL).
 */
const modelLog = (model: KurrentModel, options: Partial<KurrentLogOptions> = {}) =>
  createKurrentLog({ client: model, ...options });

testMessageLog(
  'kurrentdb adapter on an in-memory model of the client (not a server)',
  async () => ({ log: await modelLog(createKurrentModel()), teardown: async () => {} }),
  { capabilities: kurrentLogCapabilities, visibilityTimeoutMs: 2_000 },
);

describe('kurrentdb adapter on the client model', () => {
  it('stores one event per record in the space stream, ids derived, revisions from 0', async () => {
    const model = createKurrentModel();
    const log = await modelLog(model);
    const space = freshSpace();
    const records = [
      makeRecord(space, { n: 1 }),
      makeRecord(space, { n: 2 }, { idempotencyKey: 'k' }),
    ];
    await log.append(space, records);

    const raw = model.rawEvents(log.streamName(space));
    expect(log.streamName(space)).toBe(
      `sg-${space.tenantId.replaceAll('-', '%2D')}-${space.spaceId.replaceAll('-', '%2D')}`,
    );
    expect(raw.map((e) => e.id)).toEqual(records.map((r) => recordEventId(r.metadata)));
    expect(raw.map((e) => e.revision)).toEqual([0n, 1n]);
  });

  it('an answer lost after the write: a keyed retry answers duplicate, nothing doubles', async () => {
    const model = createKurrentModel();
    const log = await modelLog(model);
    const space = freshSpace();
    const attempt = () => makeRecord(space, { text: 'hi' }, { idempotencyKey: 'turn-9' });
    model.loseNextAnswer();
    await expect(log.append(space, [attempt()], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      KurrentAppendOutcomeUnknownError,
    );
    const retry = await log.append(space, [attempt()], { expectedVersion: 0 });
    expect(retry).toMatchObject({ status: 'duplicate', spaceVersion: 1 });
    expect(model.rawEvents(log.streamName(space))).toHaveLength(1);
  });

  it('an answer lost after the write: the same unkeyed records again are deduplicated by event id', async () => {
    const model = createKurrentModel();
    const log = await modelLog(model);
    const space = freshSpace();
    const records = numbered(space, 3);
    model.loseNextAnswer();
    await expect(log.append(space, records, { expectedVersion: 0 })).rejects.toThrow(
      /outcome unknown/,
    );
    const retry = await log.append(space, records, { expectedVersion: 0 });
    expect(retry).toMatchObject({ status: 'appended', spaceVersion: 3 });
    expect(model.idempotentAnswers).toBe(1);
    expect(model.rawEvents(log.streamName(space))).toHaveLength(3);
    // Other records at that version are a conflict, as usual.
    await expect(
      log.append(space, numbered(space, 1), { expectedVersion: 0 }),
    ).rejects.toBeInstanceOf(WrongExpectedVersionError);
  });

  it('two log instances (as two processes) racing one key: the server dedupes, one appended', async () => {
    const model = createKurrentModel();
    const [one, two] = [await modelLog(model), await modelLog(model)];
    const space = freshSpace();
    const results = await Promise.all(
      range(1, 10).map((i) =>
        (i % 2 ? one : two).append(space, [makeRecord(space, { i }, { idempotencyKey: 'race' })]),
      ),
    );
    const appended = results.flatMap((r) => (r.status === 'appended' ? r.records : []));
    expect(appended).toHaveLength(1);
    for (const r of results) if (r.status === 'duplicate') expect(r.existing).toEqual(appended[0]);
    expect(model.rawEvents(one.streamName(space))).toHaveLength(1);
    // The racers that lost were answered by the server's deduplication, not only by the key check.
    expect(model.idempotentAnswers).toBeGreaterThan(0);
  });

  it('a second instance finds keys the first one wrote (the key index reads the stream)', async () => {
    const model = createKurrentModel();
    const [one, two] = [await modelLog(model), await modelLog(model)];
    const space = freshSpace();
    await one.append(space, numbered(space, 5));
    await one.append(space, [makeRecord(space, { n: 6 }, { idempotencyKey: 'late' })]);
    await two.findByIdempotencyKey(space, 'nothing'); // indexes versions 1..6
    await one.append(space, [makeRecord(space, { n: 7 }, { idempotencyKey: 'later' })]);

    expect((await two.findByIdempotencyKey(space, 'late'))?.spaceVersion).toBe(6);
    expect((await two.findByIdempotencyKey(space, 'later'))?.spaceVersion).toBe(7);
    const again = await two.append(space, [makeRecord(space, {}, { idempotencyKey: 'later' })]);
    expect(again).toMatchObject({ status: 'duplicate', spaceVersion: 7 });
  });

  it('keeps finding keys of spaces evicted from the index', async () => {
    const model = createKurrentModel();
    const log = await modelLog(model, { keyIndexSpaces: 1 });
    const [a, b] = [freshSpace(), freshSpace()];
    await log.append(a, [makeRecord(a, {}, { idempotencyKey: 'k' })]);
    await log.append(b, [makeRecord(b, {}, { idempotencyKey: 'k' })]);
    expect(await log.append(a, [makeRecord(a, {}, { idempotencyKey: 'k' })])).toMatchObject({
      status: 'duplicate',
    });
  });

  it('turns a size rejection into InvalidAppendError and appends nothing', async () => {
    const model = createKurrentModel({ maxAppendSize: 1_000 });
    const log = await modelLog(model);
    const space = freshSpace();
    const refused = log.append(space, [makeRecord(space, { big: 'x'.repeat(2_000) })]);
    await expect(refused).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(refused).rejects.toThrow(/maximum-append-size-exceeded/);
    expect(await log.spaceVersion(space)).toBe(0);
  });

  it('refuses spaces that cannot name a stream and ids with lone surrogates; reads answer empty', async () => {
    const log = await modelLog(createKurrentModel());
    const long = { tenantId: 't'.repeat(65), spaceId: 's' };
    await expect(log.append(long, [makeRecord(long)])).rejects.toBeInstanceOf(InvalidAppendError);
    expect(await log.readSpace(long, 0, 10)).toEqual([]);
    expect(await log.spaceVersion(long)).toBe(0);
    expect(await log.findByIdempotencyKey(long, 'k')).toBeNull();
    const space = freshSpace();
    await expect(
      log.append(space, [makeRecord(space, {}, { idempotencyKey: 'k\uD800' })]),
    ).rejects.toBeInstanceOf(InvalidAppendError);
  });

  it('an empty append checks the expected version and appends nothing', async () => {
    const log = await modelLog(createKurrentModel());
    const space = freshSpace();
    await log.append(space, numbered(space, 2));
    expect(await log.append(space, [])).toEqual({
      status: 'appended',
      records: [],
      spaceVersion: 2,
    });
    await expect(log.append(space, [], { expectedVersion: 1 })).rejects.toMatchObject({
      expected: 1,
      actual: 2,
    });
  });

  it('readAll skips other prefixes on the same server; close disposes an owned client only', async () => {
    const model = createKurrentModel();
    const mine = await modelLog(model, { streamPrefix: 'sga' });
    const other = await modelLog(model, { streamPrefix: 'sgab' });
    const [a, b] = [freshSpace(), freshSpace()];
    await other.append(b, numbered(b, 3));
    await mine.append(a, numbered(a, 2));
    expect((await mine.readAll(0, 10)).map((r) => r.metadata.spaceId)).toEqual([
      a.spaceId,
      a.spaceId,
    ]);
    expect(await other.headPosition()).toBeLessThan(await mine.headPosition());

    await mine.close();
    expect(model.disposed).toBe(false);
    await expect(mine.readAll(0, 1)).rejects.toThrow(/closed/);
    const owning = await modelLog(model, { ownsClient: true });
    await owning.close();
    expect(model.disposed).toBe(true);
  });
});
