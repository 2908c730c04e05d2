import { describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, ExportFileInvalid, sealLine } from './export-format.ts';
import { readExport, type ExportSummary } from './read-export.ts';

const SOURCE = { tenantId: 't1', spaceId: 'alpha' };

function turn(version: number, extra: Record<string, unknown> = {}) {
  return {
    kind: 'record',
    spaceVersion: version,
    type: 'TurnRecorded',
    metadata: {
      recordId: `rec-${version}`,
      schemaVersion: 1,
      tenantId: SOURCE.tenantId,
      spaceId: SOURCE.spaceId,
      threadId: 'main',
      occurredAt: '2023-05-01T10:00:00+08:00',
      idempotencyKey: `turn:${version}`,
    },
    recordedAt: '2026-12-01T00:00:00.000Z',
    data: {
      turnId: `${version}`,
      threadId: 'main',
      spaceTurn: version,
      threadTurn: version,
      occurredAt: '2023-05-01T10:00:00+08:00',
      messages: [{ messageId: `msg_${version}`, role: 'user', content: `hello ${version}` }],
    },
    ...extra,
  };
}

/** A file of `records` lines, each sealed on the one before, as `exportSpace` writes it. */
function file(
  records: Record<string, unknown>[],
  header: Record<string, unknown> = {},
  end: Record<string, unknown> = {},
): string {
  let digest = '';
  let text = '';
  for (const line of [
    {
      kind: 'header',
      format: EXPORT_FORMAT,
      formatVersion: 1,
      source: SOURCE,
      spaceVersion: records.length,
      exportedAt: '2026-12-06T10:00:00.000Z',
      schemaVersions: { TurnRecorded: 1 },
      ...header,
    },
    ...records,
    { kind: 'end', records: records.length, ...end },
  ]) {
    const sealed = sealLine(digest, line);
    text += sealed.text;
    digest = sealed.digest;
  }
  return text;
}

async function read(text: string, chunk = 7): Promise<{ summary: ExportSummary; items: number }> {
  // Delivered in small pieces, as a network stream would, splitting lines and characters.
  const bytes = Buffer.from(text);
  async function* pieces() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const reading = readExport(pieces());
  let items = 0;
  for (;;) {
    const next = await reading.next();
    if (next.done) return { summary: next.value, items };
    items += 1;
  }
}

async function failure(text: string): Promise<ExportFileInvalid> {
  const error = await read(text).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExportFileInvalid);
  return error as ExportFileInvalid;
}

describe('reading an export file', () => {
  it('hands on the header and every record of a sound file, and its count and digest', async () => {
    const text = file([turn(1), turn(2), turn(3, { data: { ...turn(3).data, threadId: 'x' } })]);
    const { summary, items } = await read(text);
    expect(items).toBe(4);
    expect(summary.records).toBe(3);
    expect(summary.recordIds).toEqual(new Set(['rec-1', 'rec-2', 'rec-3']));
    expect(summary.digest).toBe(JSON.parse(text.trimEnd().split('\n').at(-1)!).sha256);
    // Multi-byte characters split across chunks survive.
    const content = '你好，我们改用 pnpm 😀';
    const chinese = file([
      turn(1, {
        data: { ...turn(1).data, messages: [{ messageId: 'm', role: 'user', content }] },
      }),
    ]);
    expect((await read(chinese, 1)).summary.records).toBe(1);
  });

  it('names the line an edit is on, and the line after a removed one', async () => {
    const text = file([turn(1), turn(2), turn(3)]);
    const edited = text.replace('hello 2', 'hello X');
    expect((await failure(edited)).line).toBe(3);
    const lines = text.split('\n');
    const removed = [...lines.slice(0, 2), ...lines.slice(3)].join('\n');
    const error = await failure(removed);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^line 3: the checksum does not match/);
  });

  it('tells a file cut inside a line from one cut between lines', async () => {
    const text = file([turn(1), turn(2)]);
    const inside = await failure(text.slice(0, text.indexOf('hello 2')));
    expect(inside.line).toBe(3);
    expect(inside.message).toContain('cut short');
    const lines = text.trimEnd().split('\n');
    const between = await failure(`${lines.slice(0, 3).join('\n')}\n`);
    expect(between.line).toBe(4);
    expect(between.message).toContain('ends before its end line');
  });

  it('refuses a foreign file, a newer format, unknown types and newer schema versions', async () => {
    expect((await failure('{"hello":"world"}\n')).message).toContain(
      'not a StrataGate space export',
    );
    expect((await failure('not json at all\n')).message).toBe('line 1: the line is not JSON');
    expect((await failure(file([], { formatVersion: 2 }))).message).toContain(
      'format version 2; this StrataGate reads version 1',
    );
    const unknown = await failure(file([turn(1), turn(2, { type: 'SomethingNew' })]));
    expect(unknown.line).toBe(3);
    expect(unknown.message).toContain('SomethingNew is unknown');
    const newer = turn(1);
    newer.metadata.schemaVersion = 9;
    expect((await failure(file([newer]))).message).toContain('newer than this build');
  });

  it('refuses invalid record data, other spaces, falling versions, repeated ids and trailing lines', async () => {
    const bad = turn(1);
    (bad.data as { spaceTurn: unknown }).spaceTurn = 'one';
    expect((await failure(file([bad]))).message).toMatch(/^line 2: TurnRecorded is invalid/);
    const foreign = turn(1);
    foreign.metadata.spaceId = 'beta';
    expect((await failure(file([foreign]))).message).toContain('belongs to t1/beta');
    expect((await failure(file([turn(2), turn(1)]))).line).toBe(3);
    const twice = turn(2);
    twice.metadata.recordId = 'rec-1';
    expect((await failure(file([turn(1), twice]))).message).toContain(
      'record id rec-1 appears twice',
    );
    const key = turn(2);
    key.metadata.idempotencyKey = 'turn:1';
    expect((await failure(file([turn(1), key]))).message).toContain('appears twice');
    const extra = turn(1, { surprise: true });
    expect((await failure(file([extra]))).message).toContain('record line is invalid');
    expect((await failure(`${file([turn(1)])}{"kind":"record"}\n`)).line).toBe(4);
    expect((await failure(file([turn(1)], {}, { records: 2 }))).line).toBe(3);
    expect((await failure('')).message).toBe('line 1: the file is empty');
  });
});
