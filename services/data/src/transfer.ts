import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SpaceRef } from '@stratagate/domain';
import { AppError, notFound } from '@stratagate/http';
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
    const projected = ctx.projectedPosition;
    return await importSpace({
      log: ctx.log,
      db: ctx.db,
      target: space,
      open: () => createReadStream(file),
      ...(projected
        ? { untilProjected: (position: number) => untilProjected(() => projected(space), position) }
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

/** How long an import's reply waits for the read model to hold the copy. */
const PROJECTION_WAIT_MS = 30 * 60_000;

/**
 * Waits until the read model has applied `position`. Past the wait the records are in the log and
 * the space stays marked as importing: the same file sent again finds them and waits again.
 */
async function untilProjected(projected: () => Promise<number>, position: number): Promise<void> {
  const deadline = Date.now() + PROJECTION_WAIT_MS;
  while ((await projected()) < position) {
    if (Date.now() > deadline) {
      throw new AppError(
        503,
        'projection_lagging',
        'the records are imported and the read model has not caught up with them yet; send the same file again to wait for it',
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
