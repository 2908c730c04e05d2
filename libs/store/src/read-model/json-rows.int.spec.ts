import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '../database.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { insertJsonRows } from './json-rows.ts';
import { migrateReadModel } from './migrate.ts';
import { MESSAGE_COLUMN_TYPES, type MessageRow } from './tables.ts';

/*
 * The projector inserts turns and messages as one jsonb parameter (json-rows.ts). What it reads
 * back must be exactly what it wrote, whatever the text holds, and a row already there must stay
 * as it was (a redelivered batch).
 */
const schema = 'rm_json_rows';
let database: Database;

const message = (id: string, over: Partial<MessageRow> = {}): MessageRow => ({
  tenant_id: 't',
  space_id: 's',
  message_id: id,
  turn_id: `turn-${id}`,
  thread_id: 'thread',
  seq: 0,
  role: 'user',
  name: null,
  content: `content of ${id}`,
  tool_calls: [],
  occurred_at: '2024-05-01T09:30:00+02:00',
  space_turn: 1,
  thread_turn: 1,
  ...over,
});

const read = async () =>
  (
    await sql<MessageRow>`select * from ${sql.id(schema, 'messages')} order by message_id`.execute(
      database.db,
    )
  ).rows;

beforeAll(async () => {
  database = await openTestDatabase('json_rows');
  await migrateReadModel(database.db, schema);
});
afterAll(async () => {
  await database?.close();
});

describe(`rows inserted through one jsonb parameter (${describeBackend()})`, () => {
  it('reads back every value as written: quotes, backslashes, newlines, emoji, CJK, nulls, nested jsonb', async () => {
    const rows = [
      message('a', {
        content: 'He said "no" \\ then\nleft\t— 👋 李明去了柏林',
        name: "O'Brien",
        role: 'assistant',
        seq: 1,
      }),
      message('b', {
        role: 'tool',
        content: '',
        tool_calls: [
          { name: 'search', arguments: { q: 'a "b"', n: 3, deep: [1, null, { x: true }] } },
          { name: 'noop', result: 'ok' },
        ],
        space_turn: 2_000_000_000,
      }),
    ];
    await insertJsonRows(database.db, schema, 'messages', MESSAGE_COLUMN_TYPES, rows);
    expect(await read()).toEqual(rows);
  });

  it('leaves a row that exists as it was and inserts the rest', async () => {
    await insertJsonRows(database.db, schema, 'messages', MESSAGE_COLUMN_TYPES, [
      message('a', { content: 'a second delivery must not overwrite' }),
      message('c'),
    ]);
    const rows = await read();
    expect(rows.map((r) => r.message_id)).toEqual(['a', 'b', 'c']);
    expect(rows[0]!.content).toBe('He said "no" \\ then\nleft\t— 👋 李明去了柏林');
  });

  it('does nothing for no rows', async () => {
    await insertJsonRows(database.db, schema, 'messages', MESSAGE_COLUMN_TYPES, []);
    expect(await read()).toHaveLength(3);
  });
});
