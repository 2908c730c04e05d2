import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The TypeScript sources (not tests) of the API: the edge and every service. */
function sources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.spec.ts')) files.push(path);
    }
  };
  walk('libs/http/src');
  for (const service of readdirSync(join(ROOT, 'services'))) walk(`services/${service}/src`);
  return files;
}

/** Every error code the code can answer: `(status, 'code')` pairs, conflicts and not-founds. */
function codesInCode(): Map<string, number> {
  const codes = new Map<string, number>();
  for (const file of sources()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\b([1-5]\d\d),\s*'([a-z]+(?:_[a-z]+)*)'/g)) {
      codes.set(m[2]!, Number(m[1]));
    }
    for (const m of text.matchAll(/\bconflict\(\s*'([a-z_]+)'/g)) codes.set(m[1]!, 409);
    for (const m of text.matchAll(/\bnotFound\(\s*'([a-z_]+)'/g)) {
      codes.set(`${m[1]}_not_found`, 404);
    }
  }
  return codes;
}

describe('docs/api-errors.md', () => {
  const table = new Map(
    [
      ...readFileSync(join(ROOT, 'docs/api-errors.md'), 'utf8').matchAll(
        /^\| `([a-z_]+)`\s*\| (\d{3})\s*\|/gm,
      ),
    ].map((m) => [m[1]!, Number(m[2])]),
  );

  it('finds the codes of the code base (the check itself works)', () => {
    const codes = codesInCode();
    for (const code of [
      'invalid_request',
      'turn_id_reused',
      'space_not_found',
      'request_timeout',
    ]) {
      expect(codes.has(code), code).toBe(true);
    }
  });

  it('lists every code the API answers, with its status', () => {
    const missing = [...codesInCode()].filter(([code, status]) => table.get(code) !== status);
    expect(
      missing.map(([code, status]) => `${code} (${status})`),
      'add each to docs/api-errors.md',
    ).toEqual([]);
  });
});
