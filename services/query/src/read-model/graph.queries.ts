import type { Kysely } from 'kysely';
import type { NodeType, SpaceRef } from '@stratagate/domain';
import { inSpace, type ReadModelTables } from '@stratagate/store';

/** A page of the space's visible nodes (active or disputed), in creation order. */
export async function visibleNodeIds(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  page: { type?: NodeType | undefined; limit: number; offset: number },
): Promise<string[]> {
  let q = db
    .selectFrom('graph_nodes')
    .select('node_id')
    .where(inSpace(space))
    .where('status', 'in', ['active', 'disputed']);
  if (page.type) q = q.where('type', '=', page.type);
  const rows = await q
    .orderBy('created_position')
    .orderBy('node_id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => r.node_id);
}

/** The source events of each of `nodeIds` the space holds (what adopting a node reinforces). */
export async function nodeSourceEvents(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  nodeIds: readonly string[],
): Promise<Map<string, string[]>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('graph_nodes')
    .select(['node_id', 'source_event_ids'])
    .where(inSpace(space))
    .where('node_id', 'in', [...nodeIds])
    .execute();
  return new Map(rows.map((n) => [n.node_id, n.source_event_ids]));
}
