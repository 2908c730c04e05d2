import { z } from 'zod';
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { errorResponses, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import type { DataServices } from './context.ts';
import { importSpaceFile, openSpaceExport } from './transfer.ts';
import { ExportFileBody, ExportFileDownload, ImportReply } from './transfer.schema.ts';
import { EXPORT_MEDIA_TYPE } from './transfer/export-format.ts';

const SpaceParams = z.object({ spaceId: SpaceIdParam });

/**
 * The import's body is the export file as it comes, read as a stream by the use case: its schema
 * documents it, the file's own checks validate it (the other parts are validated as usual).
 */
const streamedBody: FastifySchemaCompiler<z.ZodType> = (route) =>
  route.httpPart === 'body' ? (data) => ({ value: data }) : validatorCompiler(route);

export function transferRoutes(ctx: DataServices) {
  return async (app: TypedApp): Promise<void> => {
    app.get(
      '/v1/spaces/:spaceId/export',
      {
        schema: {
          tags: ['data'],
          operationId: 'exportSpace',
          summary: "Download a space's records as an export file",
          description:
            'Streams every record of the space, in order, as NDJSON with a checksum on each line. `POST …/import` of this file into any space, on this server or another, gives the same memory without running a model.',
          params: SpaceParams,
          response: {
            200: {
              description: 'The export file (streamed).',
              content: { [EXPORT_MEDIA_TYPE]: { schema: ExportFileDownload } },
            },
            ...errorResponses({ 404: 'The space has no records (`space_not_found`).' }),
          },
        },
      },
      async (request, reply) => {
        const space = spaceOf(request);
        const stream = await openSpaceExport(ctx, space);
        const name = `${space.spaceId.replace(/[^A-Za-z0-9._-]/g, '_')}.ndjson`;
        return (
          reply
            .header('content-type', EXPORT_MEDIA_TYPE)
            .header('content-disposition', `attachment; filename="${name}"`)
            // A stream is sent as it is (no serializer); the schema above documents what it carries.
            .send(stream as unknown as string)
        );
      },
    );

    // Its own scope: every body reaches the use case as the raw stream, whatever its type.
    await app.register(async (scope: TypedApp) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      scope.post(
        '/v1/spaces/:spaceId/import',
        {
          // Typed by fastify as a compiler of the whole route schema; it gets one part at a time.
          validatorCompiler: streamedBody as never,
          schema: {
            tags: ['data'],
            operationId: 'importSpace',
            summary: 'Import an export file into a space',
            description: `Send the file of \`GET …/export\` as the body (\`${EXPORT_MEDIA_TYPE}\`). The whole file is checked before anything is written: a changed, cut or foreign file is refused with the line where it failed, and the space stays as it was. The space must be empty, or hold the first records of this same import (an earlier run was interrupted: it resumes). Ids are rewritten when the space is another than the source. The reply comes once the space's read model holds the whole copy; until then no model job runs for the space.`,
            consumes: [EXPORT_MEDIA_TYPE],
            params: SpaceParams,
            body: ExportFileBody,
            response: {
              200: ImportReply,
              ...errorResponses({
                409: {
                  description:
                    'The space holds other records (`space_not_empty`), or was written to during the import (`space_changed`).',
                  example: {
                    code: 'space_not_empty',
                    message:
                      "space 'project:acme' already holds 12 records that are not the start of this export; import into an empty space",
                  },
                },
                413: 'The file is larger than the server takes (`payload_too_large`).',
                503: 'The records are in, and the read model has not caught up with them within 30 minutes; send the same file again to wait for it (`projection_lagging`).',
              }),
            },
          },
        },
        (request) => importSpaceFile(ctx, spaceOf(request), request.body),
      );
    });
  };
}
