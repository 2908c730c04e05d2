import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/**
 * An erasure (ADR 0046). Its records read as erased and are skipped, so the rows they made are
 * never written on replay; a live read model is rebuilt for the space when the erasure runs. What
 * is left to apply are the space's counters: its turns and blocks went on being counted while the
 * erased thread was written, and the numbers stay as the write side has them (MM-GEN-3).
 */
export async function onContentErased(rm: Rm, rec: RecordOf<'ContentErased'>, meta: Meta) {
  if (rec.data.scope === 'space') return;
  const c = rec.data.counters;
  await rm
    .updateTable('spaces')
    .set({
      turn_counter: sql<number>`greatest(turn_counter, ${c.turnCounter})`,
      block_count: sql<number>`greatest(block_count, ${c.blockSequence})`,
    })
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .execute();
}
