import { expect, it } from 'vitest';
import { WrongExpectedVersionError } from '../message-log.ts';
import {
  dataOf,
  freshSpace,
  isStrictlyIncreasing,
  itRequires,
  makeRecord,
  numbered,
  range,
  tailUntil,
  type ContractContext,
} from './fixtures.ts';

export function appendCases(ctx: ContractContext): void {
  const { capabilities: caps } = ctx;

  it('append then readSpace returns the records in order with space versions 1..n', async () => {
    const space = freshSpace();
    const first = await ctx.log().append(space, numbered(space, 3));
    const second = await ctx.log().append(space, numbered(space, 2, 4));

    expect(first).toMatchObject({ status: 'appended', spaceVersion: 3 });
    expect(second).toMatchObject({ status: 'appended', spaceVersion: 5 });
    const stored = await ctx.log().readSpace(space, 0, 100);
    expect(stored.map((r) => r.spaceVersion)).toEqual(range(1, 5));
    expect(dataOf(stored)).toEqual(range(1, 5).map((n) => ({ n })));
    const appended = [first, second].flatMap((r) => (r.status === 'appended' ? r.records : []));
    expect(stored).toEqual(appended);
    expect(await ctx.log().spaceVersion(space)).toBe(5);
  });

  itRequires(
    caps,
    ['globalOrder'],
    'append then readAll returns the records with increasing positions',
    async () => {
      const space = freshSpace();
      await ctx.log().append(space, numbered(space, 3));
      await ctx.log().append(space, numbered(space, 2, 4));

      const all = await tailUntil(ctx.log(), 5, ctx.visibilityTimeoutMs);
      expect(dataOf(all)).toEqual(range(1, 5).map((n) => ({ n })));
      expect(all.map((r) => r.spaceVersion)).toEqual(range(1, 5));
      expect(isStrictlyIncreasing(all.map((r) => r.position))).toBe(true);
      expect(all[0]?.position).toBeGreaterThan(0);
    },
  );

  it('a multi-record append is atomic: a concurrent reader sees none or all of it', async () => {
    const space = freshSpace();
    const observed = new Set<number>();
    let done = false;
    const observer = (async () => {
      while (!done) observed.add((await ctx.log().readSpace(space, 0, 1000)).length);
    })();
    await ctx.log().append(space, numbered(space, 200));
    done = true;
    await observer;
    observed.add((await ctx.log().readSpace(space, 0, 1000)).length);

    expect([...observed].filter((n) => n !== 0 && n !== 200)).toEqual([]);
    expect(observed.has(200)).toBe(true);
  });

  it('rejects an append holding a record of another space, and appends none of it', async () => {
    const space = freshSpace();
    const other = { ...space, spaceId: `${space.spaceId}-other` };
    const batch = [makeRecord(space), makeRecord(other), makeRecord(space)];

    await expect(ctx.log().append(space, batch)).rejects.toThrow();
    const otherTenant = { ...space, tenantId: `${space.tenantId}-other` };
    await expect(ctx.log().append(space, [makeRecord(otherTenant)])).rejects.toThrow();
    expect(await ctx.log().readSpace(space, 0, 10)).toEqual([]);
    expect(await ctx.log().spaceVersion(space)).toBe(0);
  });

  it('keeps per-space order across interleaved concurrent appends to several spaces', async () => {
    const spaces = [freshSpace(), freshSpace(), freshSpace()];
    // Appends to one space are issued one after another; the spaces race each other.
    await Promise.all(
      spaces.map(async (space) => {
        for (let i = 0; i < 10; i += 1)
          await ctx.log().append(space, numbered(space, 2, i * 2 + 1));
      }),
    );

    for (const space of spaces) {
      const stored = await ctx.log().readSpace(space, 0, 100);
      expect(stored.map((r) => r.spaceVersion)).toEqual(range(1, 20));
      expect(dataOf(stored)).toEqual(range(1, 20).map((n) => ({ n })));
      expect(isStrictlyIncreasing(stored.map((r) => r.position))).toBe(true);
    }
    if (!caps.globalOrder) return;
    const all = await tailUntil(ctx.log(), 60, ctx.visibilityTimeoutMs);
    expect(isStrictlyIncreasing(all.map((r) => r.position))).toBe(true);
    for (const space of spaces) {
      const mine = all.filter((r) => r.metadata.spaceId === space.spaceId);
      expect(mine.map((r) => r.spaceVersion)).toEqual(range(1, 20));
    }
  });

  it('isolates spaces and tenants: the same spaceId under two tenants is two streams', async () => {
    const a = freshSpace();
    const b = { tenantId: `${a.tenantId}-b`, spaceId: a.spaceId };
    const c = { tenantId: a.tenantId, spaceId: `${a.spaceId}-c` };
    await ctx.log().append(a, numbered(a, 2));
    await ctx.log().append(b, numbered(b, 3, 10));
    await ctx.log().append(c, numbered(c, 1, 20));

    expect(dataOf(await ctx.log().readSpace(a, 0, 10))).toEqual([{ n: 1 }, { n: 2 }]);
    expect(dataOf(await ctx.log().readSpace(b, 0, 10))).toEqual([{ n: 10 }, { n: 11 }, { n: 12 }]);
    expect((await ctx.log().readSpace(b, 0, 10)).map((r) => r.spaceVersion)).toEqual([1, 2, 3]);
    expect(await ctx.log().spaceVersion(a)).toBe(2);
    expect(await ctx.log().spaceVersion(b)).toBe(3);
    expect(await ctx.log().spaceVersion(c)).toBe(1);
    expect(await ctx.log().spaceVersion(freshSpace())).toBe(0);
  });

  it('readSpace pages with afterVersion and limit', async () => {
    const space = freshSpace();
    await ctx.log().append(space, numbered(space, 7));

    const page = await ctx.log().readSpace(space, 2, 3);
    expect(page.map((r) => r.spaceVersion)).toEqual([3, 4, 5]);
    expect((await ctx.log().readSpace(space, 5, 100)).map((r) => r.spaceVersion)).toEqual([6, 7]);
    expect(await ctx.log().readSpace(space, 7, 100)).toEqual([]);
  });

  itRequires(
    caps,
    ['expectedVersion'],
    'expectedVersion: appends when it matches, 0 for a new space',
    async () => {
      const space = freshSpace();
      const first = await ctx.log().append(space, numbered(space, 2), { expectedVersion: 0 });
      const second = await ctx.log().append(space, numbered(space, 1, 3), { expectedVersion: 2 });

      expect(first).toMatchObject({ status: 'appended', spaceVersion: 2 });
      expect(second).toMatchObject({ status: 'appended', spaceVersion: 3 });
    },
  );

  itRequires(
    caps,
    ['expectedVersion'],
    'expectedVersion: a mismatch throws WrongExpectedVersionError and appends nothing',
    async () => {
      const space = freshSpace();
      await ctx.log().append(space, numbered(space, 2));

      const stale = ctx.log().append(space, numbered(space, 1, 3), { expectedVersion: 1 });
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(stale).rejects.toMatchObject({
        code: 'wrong_expected_version',
        expected: 1,
        actual: 2,
        space,
      });
      const fresh = ctx.log().append(space, numbered(space, 1, 3), { expectedVersion: 0 });
      await expect(fresh).rejects.toMatchObject({ expected: 0, actual: 2 });
      expect(await ctx.log().spaceVersion(space)).toBe(2);
      expect(await ctx.log().readSpace(space, 0, 10)).toHaveLength(2);
    },
  );

  itRequires(
    caps,
    ['expectedVersion'],
    'expectedVersion: of concurrent appends expecting the same version exactly one wins',
    async () => {
      const space = freshSpace();
      await ctx.log().append(space, numbered(space, 1));

      const attempts = await Promise.allSettled(
        range(1, 6).map((i) =>
          ctx.log().append(space, numbered(space, 2, i * 10), { expectedVersion: 1 }),
        ),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(5);
      for (const reason of lost) expect(reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((await ctx.log().readSpace(space, 0, 100)).map((r) => r.spaceVersion)).toEqual([
        1, 2, 3,
      ]);
    },
  );
}
