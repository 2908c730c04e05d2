import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { globalSpaceId, projectSpaceId, sessionSpaceId } from './space-ids.ts';

describe('space ids (MM-SPACE-2)', () => {
  it('keys a project by the first 20 hex of SHA-256 of its resolved root path', () => {
    const sha = createHash('sha256').update('/home/ada/atlas').digest('hex');
    expect(projectSpaceId('/home/ada/atlas')).toBe(`project:${sha.slice(0, 20)}`);
    expect(projectSpaceId('/home/ada/atlas')).toMatch(/^project:[0-9a-f]{20}$/);
  });

  it('gives one folder one id whatever the spelling: relative, trailing slash, case', () => {
    const id = projectSpaceId(process.cwd());
    expect(projectSpaceId('.')).toBe(id);
    expect(projectSpaceId(`${process.cwd()}/`)).toBe(id);
    expect(projectSpaceId(process.cwd().toUpperCase())).toBe(id);
    expect(projectSpaceId('/home/ada/other')).not.toBe(projectSpaceId('/home/ada/atlas'));
  });

  it('reads backslashes as slashes', () => {
    // A Windows path seen on POSIX resolves under the working directory: compare the same way.
    expect(projectSpaceId('a\\b')).toBe(projectSpaceId('a/b'));
  });

  it('names session and global spaces, refusing ids the API would refuse', () => {
    expect(sessionSpaceId('s-42')).toBe('session:s-42');
    expect(globalSpaceId('team.notes')).toBe('global:team.notes');
    expect(() => sessionSpaceId('has space')).toThrow(RangeError);
    expect(() => globalSpaceId('x'.repeat(128))).toThrow(/not a valid space id/);
  });
});
