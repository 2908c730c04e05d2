import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  docTermFrequencies,
  graphNodeSearchFields,
  graphSearchView,
  type GraphOperation,
} from '@stratagate/domain';
import {
  GRAPH_NODE_CITED_EVENTS,
  loadEffectiveNodes,
  replaceSearchDocs,
  type ReadModelTables,
  type SearchDocInput,
  type SearchSpace,
} from '@stratagate/store';

/*
 * Graph search index maintenance (MM-RET-5, issue 4). A node's search document is a pure function
 * of its effective view (MM-GRF-8): its own facts and edges, the names at the other end of its
 * edges, and the statuses of every event they cite. Whenever any of that changes, the projector
 * recomputes the document from the read model and replaces it whole, inside the same transaction,
 * so the index always equals a fresh index of the final read model (and a rebuild from position 0
 * gives identical tables). A node that is not visible has no document.
 *
 * What triggers a re-index:
 * - a `GraphProjected` batch: every node it creates or updates, the node of every fact it adds,
 *   supersedes or disputes, and both ends of every edge it adds or supersedes;
 * - a change of event status (superseded or archived by an extraction, forgotten, restored): every
 *   node whose own sources, name, aliases, tags, facts or edges cite the event.
 */

type Rm = Kysely<ReadModelTables>;

/** Recomputes the search documents of `nodeIds` from the read model (idempotent). */
export async function reindexGraphNodes(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  nodeIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(nodeIds)].sort();
  if (ids.length === 0) return;
  const loaded = await loadEffectiveNodes(rm, space, ids);
  const docs: SearchDocInput[] = [];
  for (const id of ids) {
    const view = loaded.views.get(id);
    if (!view) continue;
    docs.push({
      docId: id,
      threadId: null,
      blockId: null,
      createdAt: loaded.firstSourceTimes.get(id) ?? '',
      status: view.status,
      ...docTermFrequencies(graphNodeSearchFields(graphSearchView(view, loaded.names))),
    });
  }
  await replaceSearchDocs(rm, schema, space, 'node', { docIds: ids, docs });
}

/** The nodes whose effective view a batch of graph operations may have changed. */
export async function nodesTouchedBy(
  rm: Rm,
  space: SearchSpace,
  operations: readonly GraphOperation[],
): Promise<string[]> {
  const nodes = new Set<string>();
  const factIds: string[] = [];
  const edgeIds: string[] = [];
  for (const op of operations) {
    switch (op.op) {
      case 'node.create':
        nodes.add(op.node.id);
        break;
      case 'node.update':
        nodes.add(op.nodeId);
        break;
      case 'fact.add':
        nodes.add(op.fact.nodeId);
        break;
      case 'fact.supersede':
      case 'fact.dispute':
        factIds.push(op.factId);
        break;
      case 'edge.add':
        nodes.add(op.edge.fromId);
        nodes.add(op.edge.toId);
        break;
      case 'edge.supersede':
        edgeIds.push(op.edgeId);
        break;
      default: {
        const never: never = op;
        throw new Error(`unknown graph operation ${JSON.stringify(never)}`);
      }
    }
  }
  const [facts, edges] = await Promise.all([
    factIds.length === 0
      ? Promise.resolve([])
      : rm
          .selectFrom('graph_facts')
          .select('node_id')
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('fact_id', 'in', factIds)
          .execute(),
    edgeIds.length === 0
      ? Promise.resolve([])
      : rm
          .selectFrom('graph_edges')
          .select(['from_id', 'to_id'])
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('edge_id', 'in', edgeIds)
          .execute(),
  ]);
  for (const f of facts) nodes.add(f.node_id);
  for (const e of edges) {
    nodes.add(e.from_id);
    nodes.add(e.to_id);
  }
  return [...nodes].sort();
}

/** Every node whose effective view cites one of `eventIds` (sources, name, aliases, tags, facts, edges). */
export async function nodesCitingEvents(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  eventIds: readonly string[],
): Promise<string[]> {
  const ids = [...new Set(eventIds)];
  if (ids.length === 0) return [];
  const { tenantId, spaceId } = space;
  const cites = (column: RawBuilder<unknown>) => sql`${column} ?| ${ids}::text[]`;
  const result = await sql<{ node_id: string }>`
    select n.node_id from ${sql.id(schema, 'graph_nodes')} n
    where n.tenant_id = ${tenantId} and n.space_id = ${spaceId}
      and ${cites(sql`(${sql.raw(GRAPH_NODE_CITED_EVENTS)})`)}
    union
    select f.node_id from ${sql.id(schema, 'graph_facts')} f
    where f.tenant_id = ${tenantId} and f.space_id = ${spaceId}
      and ${cites(sql.ref('f.source_event_ids'))}
    union
    select unnest(array[e.from_id, e.to_id]) from ${sql.id(schema, 'graph_edges')} e
    where e.tenant_id = ${tenantId} and e.space_id = ${spaceId}
      and ${cites(sql.ref('e.source_event_ids'))}
  `.execute(rm);
  return result.rows.map((r) => r.node_id).sort();
}

/** Re-indexes the nodes citing `eventIds` after their statuses changed (idempotent). */
export async function reindexNodesCitingEvents(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  eventIds: readonly string[],
): Promise<void> {
  await reindexGraphNodes(rm, schema, space, await nodesCitingEvents(rm, schema, space, eventIds));
}

/** Records that may change the status of memory events cited by the graph (MM-GRF-8). */
const EVENT_STATUS_RECORDS: ReadonlySet<string> = new Set([
  'MemoryEventsExtracted', // supersedes targets, archives a re-extracted block's events
  'MemoryEventStateChanged', // forget / restore
  'AgentMemoryRecorded', // an applied SUPERSEDE from remember
  'ExternalMemoryImported', // MERGE and SUPERSEDE of an import
]);

/**
 * After a record that may have changed event statuses: re-indexes the nodes citing the events the
 * record changed. Every status change stamps the event row with the record's position
 * (`applied_position`), so those rows are exactly the candidates; rows stamped by other changes
 * (pin, a new event nobody cites yet) only cost a look-up. Safe to run again on redelivery.
 */
export async function reindexAfterEventChanges(
  rm: Rm,
  schema: string,
  record: { type: string; meta: { position: number; metadata: SearchSpace } },
): Promise<void> {
  if (!EVENT_STATUS_RECORDS.has(record.type)) return;
  const { tenantId, spaceId } = record.meta.metadata;
  const changed = await rm
    .selectFrom('memory_events')
    .select('event_id')
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('applied_position', '=', record.meta.position)
    .execute();
  await reindexNodesCitingEvents(
    rm,
    schema,
    { tenantId, spaceId },
    changed.map((r) => r.event_id),
  );
}
