import type { SpaceRef } from '@stratagate/domain';
import type { StrataGateNode } from '@stratagate/runtime';
import { dumpSpaceReadModel } from '@stratagate/store';

/**
 * The live read model of one space, comparable with another installation's (positions as the
 * ordinals of their records among the space's readable ones, the space's ids left out).
 */
export async function spaceDump(
  node: StrataGateNode,
  space: SpaceRef,
): Promise<Record<string, unknown[]>> {
  const ordinals = new Map<number, number>();
  let after = 0;
  for (;;) {
    const page = await node.log.readSpace(space, after, 1000);
    for (const record of page) {
      // Erased records make no rows (ADR 0046), and an export leaves them out.
      if (!record.erased) ordinals.set(record.position, ordinals.size + 1);
      after = record.spaceVersion;
    }
    if (page.length < 1000) break;
  }
  // A position that is no record of the space shows as negative: the comparison fails on it.
  return dumpSpaceReadModel(
    node.database.db,
    await node.readModel.get(),
    space,
    (p) => ordinals.get(p) ?? -p,
  );
}
