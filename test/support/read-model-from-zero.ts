import { sql } from 'kysely';
import { createCoreProjection, createProjector } from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import type { TestNode } from '../harness.ts';

/**
 * The read model a projection from position 0 builds of the node's log as it reads now, dumped;
 * built in `schema`, which is dropped afterwards.
 */
export async function readModelFromZero(
  t: TestNode,
  schema: string,
): Promise<Record<string, unknown[]>> {
  const db = t.node.database.db;
  const head = await t.node.log.headPosition();
  const projector = createProjector({
    db,
    log: t.node.log,
    schema,
    projection: createCoreProjection(),
  });
  while ((await projector.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
  const dump = await dumpReadModel(db, schema);
  await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
  return dump;
}
