import { describe, expect, it } from 'vitest';
import { placeRoles } from './background-thread.ts';
import { loadConfig } from './config.ts';

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

  it('keeps every role on the main thread on PGlite, when switched off, or with one kind of role', () => {
    expect(placeRoles(loadConfig({}, {}))).toBeNull();
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
