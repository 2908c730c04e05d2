import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Tracked and new (not ignored) text files of the repository. */
function repositoryFiles(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return out
    .split('\0')
    .filter((f) => f && /\.(ts|mts|mjs|js|md|json|ya?ml|sh)$/.test(f))
    .filter((f) => !f.startsWith('node_modules/') && f !== 'package-lock.json');
}

const read = (file: string) => {
  try {
    return readFileSync(join(ROOT, file), 'utf8');
  } catch {
    return ''; // listed by git but deleted in the work tree
  }
};

/**
 * Every rule id a text cites, with the shorthands expanded: `MM-BLK-17/18` is 17 and 18,
 * `MM-BLK-17..21` is 17 to 21.
 */
export function citedRuleIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const m of text.matchAll(/\bMM-([A-Z]+)-(\d+(?:(?:\/|\.\.)\d+)*)/g)) {
    const [, area, list] = m;
    for (const part of list!.split('/')) {
      const [from, to] = part.split('..').map(Number);
      for (let n = from!; n <= (to ?? from!); n++) ids.add(`MM-${area}-${n}`);
    }
  }
  return ids;
}

describe('docs/memory-model.md', () => {
  const entries = new Set(
    [...read('docs/memory-model.md').matchAll(/^- \*\*(MM-[A-Z]+-\d+)\*\*/gm)].map((m) => m[1]!),
  );

  it('reads the shorthands for several rules', () => {
    expect([...citedRuleIds('(MM-BLK-17/18, MM-GATE-7..9; MM-EVT-2)')].sort()).toEqual([
      'MM-BLK-17',
      'MM-BLK-18',
      'MM-EVT-2',
      'MM-GATE-7',
      'MM-GATE-8',
      'MM-GATE-9',
    ]);
    expect(citedRuleIds('YYYY-MM-DDTHH:mm, MM-WGT without a number').size).toBe(0);
  });

  it('has one entry for every rule id cited in code, tests and docs', () => {
    const missing = new Map<string, string>();
    for (const file of repositoryFiles()) {
      for (const id of citedRuleIds(read(file))) {
        if (!entries.has(id) && !missing.has(id)) missing.set(id, file);
      }
    }
    expect(
      [...missing].map(([id, file]) => `${id} (cited in ${file})`),
      'add an entry to docs/memory-model.md for each',
    ).toEqual([]);
  });

  it('has each entry once', () => {
    const all = [...read('docs/memory-model.md').matchAll(/^- \*\*(MM-[A-Z]+-\d+)\*\*/gm)].map(
      (m) => m[1]!,
    );
    expect(all.length).toBe(entries.size);
  });
});

describe('README.md', () => {
  it('is a user guide of at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});

describe('docs/adr', () => {
  const adrs = repositoryFiles().filter((f) => /^docs\/adr\/\d{4}-.*\.md$/.test(f));

  it('every ADR has a status, and a superseded one names an ADR that exists', () => {
    const numbers = new Set(adrs.map((f) => f.slice('docs/adr/'.length, 'docs/adr/'.length + 4)));
    for (const file of adrs) {
      const status = /^Status: (.*)$/m.exec(read(file))?.[1];
      expect(status, `${file} has no Status line`).toBeDefined();
      for (const m of status!.matchAll(/[Ss]uperseded by (?:ADR )?(\d{4})/g)) {
        expect(numbers.has(m[1]!), `${file}: ADR ${m[1]} does not exist`).toBe(true);
      }
    }
  });
});
