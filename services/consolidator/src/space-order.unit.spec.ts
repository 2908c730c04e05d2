import { describe, expect, it } from 'vitest';
import { nextPerSpace } from './space-order.ts';

const block = (space: string, sequence: number, tenant = 't') => ({
  tenant_id: tenant,
  space_id: space,
  sequence,
  id: `${tenant}/${space}/${sequence}`,
});

describe('nextPerSpace', () => {
  it("takes each space's first due block by sequence, whatever the input order", () => {
    const due = [block('a', 3), block('b', 1), block('a', 2), block('b', 2), block('c', 7)];
    expect(nextPerSpace(due, () => false).map((b) => b.id)).toEqual(['t/a/2', 't/b/1', 't/c/7']);
  });

  it('holds a space back while its first due block is in flight, and no other space', () => {
    const due = [block('a', 1), block('a', 2), block('b', 1)];
    const inFlight = (b: { id: string }) => b.id === 't/a/1';
    expect(nextPerSpace(due, inFlight).map((b) => b.id)).toEqual(['t/b/1']);
  });

  it('tells spaces of different tenants apart', () => {
    const due = [block('a', 1, 't1'), block('a', 1, 't2')];
    expect(nextPerSpace(due, () => false)).toHaveLength(2);
  });

  it('has nothing to run when nothing is due', () => {
    expect(nextPerSpace([], () => false)).toEqual([]);
  });
});
