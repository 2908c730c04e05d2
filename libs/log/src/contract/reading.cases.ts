import type { RecordMetadata, StoredRecord } from '@stratagate/domain';
import { expect, it } from 'vitest';
import {
  freshSpace,
  itRequires,
  makeRecord,
  numbered,
  tailUntil,
  type ContractContext,
} from './fixtures.ts';

export function readingCases(ctx: ContractContext): void {
  const { capabilities: caps } = ctx;

  itRequires(caps, ['globalOrder'], 'readAll pages with afterPosition and limit', async () => {
    const [a, b] = [freshSpace(), freshSpace()];
    await ctx.log().append(a, numbered(a, 3));
    await ctx.log().append(b, numbered(b, 2, 4));
    await ctx.log().append(a, numbered(a, 2, 6));
    const all = await tailUntil(ctx.log(), 7, ctx.visibilityTimeoutMs);
    expect(all.map((r) => r.data)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => ({ n })));

    const pages: StoredRecord[][] = [];
    let after = 0;
    for (;;) {
      const page = await ctx.log().readAll(after, 3);
      const last = page.at(-1);
      if (!last) break;
      pages.push(page);
      after = last.position;
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(all);
    const second = all[1]?.position ?? 0;
    expect(await ctx.log().readAll(second, 2)).toEqual(all.slice(2, 4));
    expect(await ctx.log().readAll(all.at(-1)?.position ?? 0, 10)).toEqual([]);
  });

  itRequires(
    caps,
    ['globalOrder'],
    'headPosition is 0 when empty and reaches the last appended position',
    async () => {
      expect(await ctx.log().headPosition()).toBe(0);
      const space = freshSpace();
      await ctx.log().append(space, numbered(space, 2));
      const result = await ctx.log().append(space, numbered(space, 3, 3));
      const last = result.status === 'appended' ? result.records.at(-1)?.position : undefined;

      await expect
        .poll(() => ctx.log().headPosition(), { timeout: ctx.visibilityTimeoutMs })
        .toBe(last);
      const all = await tailUntil(ctx.log(), 5, ctx.visibilityTimeoutMs);
      expect(all.at(-1)?.position).toBe(last);
    },
  );

  it('readAt, where the adapter has it, finds a space’s record by its position and nothing else', async (test) => {
    const log = ctx.log();
    if (!log.readAt) {
      test.skip(); // optional in the port: this adapter does not read by position
      return;
    }
    const [a, b] = [freshSpace(), freshSpace()];
    const appended = await log.append(a, numbered(a, 3));
    await log.append(b, numbered(b, 1));
    const stored = appended.status === 'appended' ? appended.records : [];
    expect(stored).toHaveLength(3);
    const second = stored[1]!;
    expect(await log.readAt(a, second.position)).toEqual(second);
    // The same position seen through another space is not that space's record.
    expect(await log.readAt(b, second.position)).toBeNull();
    expect(await log.readAt(a, stored.at(-1)!.position + 1_000_000)).toBeNull();
  });

  it('onAppended fires after an append of this instance and stops after unsubscribe', async () => {
    const space = freshSpace();
    let calls = 0;
    const unsubscribe = ctx.log().onAppended(() => (calls += 1));
    await ctx.log().append(space, numbered(space, 2));
    await expect.poll(() => calls).toBeGreaterThanOrEqual(1);

    unsubscribe();
    const before = calls;
    await ctx.log().append(space, numbered(space, 1, 3));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(before);
  });

  it('round-trips metadata and data unchanged: unicode, caller offsets, every optional field', async () => {
    const space = { tenantId: '租户-ä', spaceId: 'raum/🧠 memory' };
    const metadata: RecordMetadata = {
      recordId: `rec-${freshSpace().spaceId}-ß`,
      schemaVersion: 3,
      tenantId: space.tenantId,
      spaceId: space.spaceId,
      threadId: 'スレッド-1',
      occurredAt: '2023-06-09T13:56:00+08:00',
      causationId: 'cause-✓',
      correlationId: 'corr-1',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      idempotencyKey: 'turn-“quoted”-€',
    };
    const data = {
      text: '今天下午两点 meeting 🚀 — "quotes" \\ backslash\nnew line',
      nested: { list: [1, 2.5, -3, null, true, 'ü'], empty: {} },
    };
    const result = await ctx
      .log()
      .append(space, [makeRecord(space, data, metadata, 'TurnRecorded')]);
    if (result.status !== 'appended') throw new Error('expected an append');

    const reads: StoredRecord[] = [...result.records, ...(await ctx.log().readSpace(space, 0, 10))];
    if (caps.globalOrder) reads.push(...(await tailUntil(ctx.log(), 1, ctx.visibilityTimeoutMs)));
    if (caps.idempotentAppend) {
      const found = await ctx.log().findByIdempotencyKey(space, metadata.idempotencyKey ?? '');
      if (found) reads.push(found);
    }
    expect(reads).toHaveLength(2 + Number(caps.globalOrder) + Number(caps.idempotentAppend));
    for (const stored of reads) {
      expect(Object.keys(stored).sort()).toEqual(
        ['data', 'metadata', 'position', 'recordedAt', 'spaceVersion', 'type'].sort(),
      );
      expect(stored.metadata).toStrictEqual(metadata);
      expect(stored.data).toStrictEqual(data);
      expect(stored.type).toBe('TurnRecorded');
      expect(stored).toStrictEqual(result.records[0]);
    }
  });

  it('recordedAt is log time as an ISO-8601 UTC string; position and spaceVersion are numbers', async () => {
    const space = freshSpace();
    const result = await ctx.log().append(space, numbered(space, 1));
    const [stored] = await ctx.log().readSpace(space, 0, 1);

    expect(stored?.recordedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(Math.abs(Date.parse(stored?.recordedAt ?? '') - Date.now())).toBeLessThan(3_600_000);
    expect(typeof stored?.position).toBe('number');
    expect(typeof stored?.spaceVersion).toBe('number');
    expect(result.status === 'appended' && result.records[0]?.recordedAt).toBe(stored?.recordedAt);
  });
}
