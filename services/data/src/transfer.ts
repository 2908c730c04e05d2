import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SpaceRef } from '@stratagate/domain';
import { AppError, notFound } from '@stratagate/http';
import { awaitProjection, queryContext } from '@stratagate/query';
import type { DataServices } from './context.ts';
import { ExportFileInvalid } from './transfer/export-format.ts';
import { exportSpace } from './transfer/export-space.ts';
import { importSpace } from './transfer/import-space.ts';
import type { ImportReply } from './transfer.schema.ts';

/** The space's export file as a stream of text (404 for a space with no records). */
export async function openSpaceExport(ctx: DataServices, space: SpaceRef): Promise<Readable> {
  if ((await ctx.log.spaceVersion(space)) === 0) throw notFound('space', space.spaceId);
  return Readable.from(exportSpace(ctx.log, space, { now: ctx.now }));
}

/**
 * Imports an export file sent as the request body into `space`. The body is kept in a temporary
 * file while it is read twice (verified whole, then applied) and removed afterwards.
 */
export async function importSpaceFile(
  ctx: DataServices,
  space: SpaceRef,
  body: unknown,
): Promise<ImportReply> {
  const dir = await mkdtemp(join(ctx.tmpDir ?? tmpdir(), 'stratagate-import-'));
  try {
    const file = join(dir, 'export.ndjson');
    await stage(body, file, ctx.importLimitBytes);
    const query = ctx.imports?.query;
    return await importSpace({
      log: ctx.log,
      db: ctx.db,
      target: space,
      open: () => createReadStream(file),
      // The mark stays until the query role's read model holds the copy (then the reply).
      ...(query
        ? {
            untilProjected: async (position: number) =>
              awaitProjection(await queryContext(query), space, position, PROJECTION_WAIT_MS),
          }
        : {}),
    });
  } catch (error) {
    if (error instanceof ExportFileInvalid) {
      throw new AppError(400, error.code, error.message, { line: error.line });
    }
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * How long an import's reply waits for the read model to hold the copy. Past it the records are
 * in the log and the space stays marked: the same file sent again finds them and waits again.
 */
const PROJECTION_WAIT_MS = 30 * 60_000;

/** Copies the request body to `file`, refusing more than `limit` bytes. */
async function stage(body: unknown, file: string, limit: number): Promise<void> {
  const source =
    body instanceof Readable
      ? body
      : Readable.from(body === undefined || body === null ? [] : [String(body)]);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) {
        done(
          new AppError(
            413,
            'payload_too_large',
            `the export file is larger than this server takes (${limit} bytes, STRATAGATE_IMPORT_LIMIT_BYTES)`,
          ),
        );
      } else {
        done(null, chunk);
      }
    },
  });
  await pipeline(source, counter, createWriteStream(file));
}
