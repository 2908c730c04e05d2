import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/*
 * Space ids by mode (memory model, MM-SPACE-2): a project's memory is keyed by where it lives
 * on disk, a session's and a global one by name. The server takes any valid id; these helpers
 * make hosts that share a project agree on the same one.
 */

const SPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function checked(id: string): string {
  if (!SPACE_ID.test(id)) {
    throw new RangeError(
      `'${id}' is not a valid space id: 1–128 letters, digits, '.', '_', ':' or '-'`,
    );
  }
  return id;
}

/**
 * `project:` and the first 20 hex digits of the SHA-256 of the project's root path, resolved
 * to an absolute path, with `\` as `/` and lower-cased, so the same folder gives the same id
 * whatever the working directory, separator or letter case the host sees it with.
 */
export function projectSpaceId(rootPath: string): string {
  const normalised = resolve(rootPath).replace(/\\/g, '/').toLowerCase();
  return `project:${createHash('sha256').update(normalised, 'utf8').digest('hex').slice(0, 20)}`;
}

/** `session:<id>`: memory that lives for one session. */
export function sessionSpaceId(sessionId: string): string {
  return checked(`session:${sessionId}`);
}

/** `global:<name>`: memory shared by every project of the tenant that names it. */
export function globalSpaceId(name: string): string {
  return checked(`global:${name}`);
}
