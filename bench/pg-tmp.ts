import pg from 'pg';
import { closedLoop } from './ingest.bench.ts';
import { startServer } from './server.ts';
const base = 'postgres://postgres@127.0.0.1:5432/postgres';
for (const roles of ['ingest,query']) {
  const name = `sg_tmp_${Date.now()}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const s = await startServer([
    '--database-url',
    `postgres://postgres@127.0.0.1:5432/${name}`,
    '--role',
    roles,
  ]);
  await closedLoop(s, 300, 16, 10, 'w');
  for (const c of [32, 64]) {
    const r = await closedLoop(s, 4000, c, 50, 'm' + c);
    console.log(roles, c, r.turnsPerSecond, r.latency.p50, r.latency.p99);
  }
  await s.stop();
  await admin.query(`drop database ${name} with (force)`);
  await admin.end();
}
