import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineModelThread, placeRoles } from './background-thread.ts';
import { loadConfig } from './config.ts';

const dirs = mkdtempSync(join(tmpdir(), 'sg-place-'));
afterAll(() => rmSync(dirs, { recursive: true, force: true }));
/** A data directory from before ADR 0030: a PGlite store itself (it has PG_VERSION). */
const oneDatabaseDir = join(dirs, 'one');
mkdirSync(oneDatabaseDir);
writeFileSync(join(oneDatabaseDir, 'PG_VERSION'), '17\n');
const splitDir = join(dirs, 'split');

const server = 'postgres://postgres@127.0.0.1:5432/stratagate';

describe('placeRoles: which roles serve runs in the background thread (ADR 0016)', () => {
  it('on a Postgres server, projector and consolidator go to the worker, ingest and query stay', () => {
    expect(placeRoles(loadConfig({}, { DATABASE_URL: server }))).toEqual({
      main: ['ingest', 'query'],
      background: ['projector', 'consolidator'],
    });
    expect(
      placeRoles(loadConfig({}, { DATABASE_URL: server, STRATAGATE_ROLES: 'query,projector' })),
    ).toEqual({ main: ['query'], background: ['projector'] });
  });

  it('on an embedded data directory with the split layout, the same (ADR 0030)', () => {
    expect(placeRoles(loadConfig({}, { STRATAGATE_DATA_DIR: splitDir }))).toEqual({
      main: ['ingest', 'query'],
      background: ['projector', 'consolidator'],
    });
  });

  it('keeps every role on the main thread on a one-database embedded directory, when switched off, or with one kind of role', () => {
    expect(placeRoles(loadConfig({}, { STRATAGATE_DATA_DIR: oneDatabaseDir }))).toBeNull();
    expect(
      placeRoles(
        loadConfig({}, { STRATAGATE_DATA_DIR: splitDir, STRATAGATE_BACKGROUND_THREAD: 'false' }),
      ),
    ).toBeNull();
    expect(
      placeRoles(
        loadConfig({}, { STRATAGATE_DATA_DIR: splitDir, STRATAGATE_ROLES: 'ingest,query' }),
      ),
    ).toBeNull();
    expect(
      placeRoles(loadConfig({}, { DATABASE_URL: server, STRATAGATE_BACKGROUND_THREAD: 'false' })),
    ).toBeNull();
    expect(
      placeRoles(loadConfig({}, { DATABASE_URL: server, STRATAGATE_ROLES: 'ingest,query' })),
    ).toBeNull();
    expect(
      placeRoles(
        loadConfig({}, { DATABASE_URL: server, STRATAGATE_ROLES: 'projector,consolidator' }),
      ),
    ).toBeNull();
  });

  it('rejects anything but true or false', () => {
    expect(() => loadConfig({}, { STRATAGATE_BACKGROUND_THREAD: 'yes' })).toThrow(
      /STRATAGATE_BACKGROUND_THREAD/,
    );
  });
});

describe('offlineModelThread: where the offline provider runs (ADR 0022)', () => {
  it('on its own thread when the consolidator shares an event loop with another role', () => {
    // The embedded default: every role in one thread.
    expect(offlineModelThread(loadConfig({}, {}))).toBe(true);
    // A server's background thread: projector and consolidator (placeRoles gives it those).
    const background = placeRoles(loadConfig({}, { DATABASE_URL: server }))!.background;
    expect(
      offlineModelThread(
        loadConfig({}, { DATABASE_URL: server, STRATAGATE_ROLES: background.join(',') }),
      ),
    ).toBe(true);
  });

  it('in the caller’s thread for a consolidator alone, without a consolidator, or when off', () => {
    expect(offlineModelThread(loadConfig({}, { STRATAGATE_ROLES: 'consolidator' }))).toBe(false);
    expect(offlineModelThread(loadConfig({}, { STRATAGATE_ROLES: 'ingest,query' }))).toBe(false);
    expect(offlineModelThread(loadConfig({}, { STRATAGATE_OFFLINE_MODEL_THREAD: 'false' }))).toBe(
      false,
    );
    expect(() => loadConfig({}, { STRATAGATE_OFFLINE_MODEL_THREAD: 'yes' })).toThrow(
      /STRATAGATE_OFFLINE_MODEL_THREAD/,
    );
  });
});
