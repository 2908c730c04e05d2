import { expect } from 'vitest';
import { WrongExpectedVersionError } from '../message-log.ts';
import { freshSpace, itRequires, makeRecord, range, type ContractContext } from './fixtures.ts';

export function idempotencyCases(ctx: ContractContext): void {
  const { capabilities: caps } = ctx;

  itRequires(
    caps,
    ['idempotentAppend'],
    'idempotent append: the same key twice answers duplicate with the first record, one stored',
    async () => {
      const space = freshSpace();
      const first = await ctx
        .log()
        .append(space, [makeRecord(space, { try: 1 }, { idempotencyKey: 'turn-1' })]);
      const again = await ctx
        .log()
        .append(space, [makeRecord(space, { try: 2 }, { idempotencyKey: 'turn-1' })]);

      if (first.status !== 'appended') throw new Error('first append must append');
      expect(again).toEqual({ status: 'duplicate', existing: first.records[0], spaceVersion: 1 });
      const stored = await ctx.log().readSpace(space, 0, 10);
      expect(stored).toHaveLength(1);
      expect(stored[0]?.data).toEqual({ try: 1 });
    },
  );

  itRequires(
    caps,
    ['idempotentAppend'],
    'idempotent append: a batch holding a stored key appends nothing and names the first such key',
    async () => {
      const space = freshSpace();
      await ctx
        .log()
        .append(space, [
          makeRecord(space, { n: 1 }, { idempotencyKey: 'a' }),
          makeRecord(space, { n: 2 }, { idempotencyKey: 'b' }),
        ]);
      const batch = [
        makeRecord(space, { n: 3 }, { idempotencyKey: 'new' }),
        makeRecord(space, { n: 4 }, { idempotencyKey: 'b' }),
        makeRecord(space, { n: 5 }, { idempotencyKey: 'a' }),
      ];

      const result = await ctx.log().append(space, batch);
      expect(result).toMatchObject({ status: 'duplicate', spaceVersion: 2 });
      expect(result.status === 'duplicate' && result.existing.metadata.idempotencyKey).toBe('b');
      expect(result.status === 'duplicate' && result.existing.data).toEqual({ n: 2 });
      expect(await ctx.log().readSpace(space, 0, 10)).toHaveLength(2);
      expect(await ctx.log().findByIdempotencyKey(space, 'new')).toBeNull();
    },
  );

  itRequires(
    caps,
    ['idempotentAppend'],
    'idempotent append: the same key in different spaces and tenants is independent',
    async () => {
      const a = freshSpace();
      const b = { ...a, spaceId: `${a.spaceId}-b` };
      const c = { ...a, tenantId: `${a.tenantId}-c` };
      for (const space of [a, b, c]) {
        const result = await ctx
          .log()
          .append(space, [makeRecord(space, {}, { idempotencyKey: 'k' })]);
        expect(result.status).toBe('appended');
      }
      expect(await ctx.log().spaceVersion(b)).toBe(1);
      expect(await ctx.log().spaceVersion(c)).toBe(1);
    },
  );

  itRequires(
    caps,
    ['idempotentAppend'],
    'idempotent append: of concurrent appends of one key exactly one is appended',
    async () => {
      const space = freshSpace();
      const results = await Promise.all(
        range(1, 8).map((i) =>
          ctx.log().append(space, [makeRecord(space, { i }, { idempotencyKey: 'race' })]),
        ),
      );

      const appended = results.flatMap((r) => (r.status === 'appended' ? r.records : []));
      expect(appended).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'duplicate')) {
        expect(r).toMatchObject({ existing: appended[0], spaceVersion: 1 });
      }
      expect(await ctx.log().readSpace(space, 0, 10)).toEqual(appended);
    },
  );

  itRequires(
    caps,
    ['idempotentAppend', 'expectedVersion'],
    'idempotent append: a retry with a now-stale expectedVersion answers duplicate, not a version error',
    async () => {
      const space = freshSpace();
      const record = makeRecord(space, {}, { idempotencyKey: 'retry' });
      await ctx.log().append(space, [record], { expectedVersion: 0 });

      const retry = await ctx.log().append(space, [record], { expectedVersion: 0 });
      expect(retry).toMatchObject({ status: 'duplicate', spaceVersion: 1 });
      const other = ctx.log().append(space, [makeRecord(space)], { expectedVersion: 0 });
      await expect(other).rejects.toBeInstanceOf(WrongExpectedVersionError);
    },
  );

  itRequires(
    caps,
    ['idempotentAppend'],
    'findByIdempotencyKey finds the stored record in its own space only',
    async () => {
      const space = freshSpace();
      const result = await ctx
        .log()
        .append(space, [
          makeRecord(space, { n: 1 }),
          makeRecord(space, { n: 2 }, { idempotencyKey: 'receipt-7' }),
        ]);

      const found = await ctx.log().findByIdempotencyKey(space, 'receipt-7');
      expect(found).toEqual(result.status === 'appended' ? result.records[1] : undefined);
      expect(found?.spaceVersion).toBe(2);
      expect(await ctx.log().findByIdempotencyKey(space, 'receipt-8')).toBeNull();
      const sibling = { ...space, spaceId: `${space.spaceId}-x` };
      expect(await ctx.log().findByIdempotencyKey(sibling, 'receipt-7')).toBeNull();
    },
  );
}
