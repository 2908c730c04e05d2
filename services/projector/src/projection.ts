import type { DecodedRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';

/**
 * A projection is a batch handler that receives the open transaction. The runner stores the
 * checkpoint in that same transaction; handlers are also idempotent on their own (row-level
 * position guards, insert-on-conflict-do-nothing), so a batch delivered twice changes nothing.
 */
export interface Projection {
  readonly name: string;
  /** Creates the projection's tables in `schema` if absent. */
  migrate(db: AnyDb, schema: string): Promise<void>;
  handle(trx: AnyDb, schema: string, records: DecodedRecord[]): Promise<void>;
}
