import { describeBackend } from '@stratagate/store/testing';
import { sql } from 'kysely';
import { sharedTestDatabase } from './contract/fixtures.ts';
import { testMessageSource } from './message-source.contract.ts';
import { createPostgresLog } from './postgres-log.ts';
import { createTableSource, type PositionCheckpoints } from './table-source.ts';

const shared = sharedTestDatabase('table_source');
let counter = 0;

/** A consumer's checkpoint row, as a projection keeps it beside its tables. */
function checkpointRow(table: ReturnType<typeof sql.table>, name: string): PositionCheckpoints {
  return {
    async read(q) {
      const { rows } = await sql<{ position: string | number }>`
        select position from ${table} where name = ${name}`.execute(q);
      return Number(rows[0]?.position ?? 0);
    },
    async store(tx, expected, next) {
      const { rows } = await sql`
        insert into ${table} as c (name, position) values (${name}, ${next})
        on conflict (name) do update set position = ${next} where c.position = ${expected}
        returning position`.execute(tx);
      return rows.length > 0 ? 'ok' : 'moved';
    },
  };
}

testMessageSource(`postgres table on ${describeBackend()}`, async () => {
  const db = await shared();
  counter += 1;
  const schema = `table_source_case_${counter}`;
  const log = await createPostgresLog(db, { schema });
  const table = sql.table(`${schema}_cp.checkpoints`);
  await sql`create schema ${sql.id(`${schema}_cp`)}`.execute(db.db);
  await sql`create table ${table} (name text primary key, position bigint not null)`.execute(db.db);
  return {
    log,
    db: db.db,
    source: async (consumer) =>
      createTableSource({ log, db: db.db, checkpoints: checkpointRow(table, consumer) }),
    async teardown() {
      for (const s of [schema, `${schema}_cp`]) {
        await sql`drop schema if exists ${sql.id(s)} cascade`.execute(db.db);
      }
    },
  };
});
