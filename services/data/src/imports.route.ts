import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import type { FastifyRequest } from 'fastify';
import type { DataServices } from './context.ts';
import {
  commitImport,
  confirmImportItems,
  getImport,
  previewImport,
  undoImport,
} from './imports.ts';
import {
  CommitImportBody,
  ConfirmImportBody,
  CreateImportBody,
  ImportView,
} from './imports.schema.ts';

const requester = (request: FastifyRequest) => request.principal?.keyId ?? 'unknown';
const ImportParams = z.object({ spaceId: SpaceIdParam, importId: IdParam });
const NOT_FOUND = 'No import with this id in the space (`import_not_found`).';

/** External memory import (MM-IMP): preview, confirm, commit and undo another AI's memories. */
export function importRoutes(ctx: DataServices) {
  return (app: TypedApp): void => {
    app.post(
      '/v1/spaces/:spaceId/imports',
      {
        schema: {
          tags: ['data'],
          operationId: 'previewImport',
          summary: "Import another AI's memory export: preview what each memory would do",
          description:
            'Reads the export, compares each memory with the existing ones and proposes to add, merge, supersede, mark a conflict or ignore it. Nothing is written to the memory: the preview is kept as a job, and the same text sent again under the same `importId` resumes an interrupted analysis. A memory over a field limit is refused with its index and field.',
          params: z.object({ spaceId: SpaceIdParam }),
          body: CreateImportBody,
          response: {
            200: ImportView,
            ...errorResponses({
              409: 'The `importId` was already used for another text (`import_id_reused`).',
              413: true,
              503: 'The read model has not caught up with the log within 10 s; retry shortly (`projection_lagging`).',
            }),
          },
        },
      },
      (request) => previewImport(ctx, spaceOf(request), request.body, requester(request)),
    );

    app.get(
      '/v1/spaces/:spaceId/imports/:importId',
      {
        schema: {
          tags: ['data'],
          operationId: 'getImport',
          summary: 'Read an import: its preview, or what its commit did',
          params: ImportParams,
          response: { 200: ImportView, ...errorResponses({ 404: NOT_FOUND }) },
        },
      },
      (request) => getImport(ctx, spaceOf(request), request.params.importId),
    );

    app.post(
      '/v1/spaces/:spaceId/imports/:importId/confirm',
      {
        schema: {
          tags: ['data'],
          operationId: 'confirmImportItems',
          summary: 'Choose what to do with memories of an import preview',
          description:
            'Sets the action of the listed memories, with targets only among the existing memories each was compared with. Items that needed confirmation and get none are ignored by the commit.',
          params: ImportParams,
          body: ConfirmImportBody,
          response: {
            200: ImportView,
            ...errorResponses({
              404: NOT_FOUND,
              409: 'The import is still being analysed or failed (`import_not_ready`), or is already committed or undone (`import_closed`).',
              413: true,
            }),
          },
        },
      },
      (request) => confirmImportItems(ctx, spaceOf(request), request.params.importId, request.body),
    );

    app.post(
      '/v1/spaces/:spaceId/imports/:importId/commit',
      {
        schema: {
          tags: ['data'],
          operationId: 'commitImport',
          summary: 'Write an import preview to the memory, all at once',
          description:
            'Writes the new memories, citing a block that keeps the whole text, supersedes or links the existing ones as decided, and queues the knowledge graph for the new memories only. Refused when the space changed since the preview (`preview_stale`): preview again. Committing again answers the same.',
          params: ImportParams,
          body: CommitImportBody,
          response: {
            200: ImportView,
            ...errorResponses({
              404: NOT_FOUND,
              409: {
                description:
                  'The space changed since the preview (`preview_stale`); the import is still being analysed or failed (`import_not_ready`), or was undone (`import_closed`).',
                example: {
                  code: 'preview_stale',
                  message:
                    'preview is stale: the space changed since it was made; preview the import again',
                  details: { currentRevision: 57 },
                },
              },
              413: true,
              503: 'The read model has not caught up with the log within 10 s; retry shortly (`projection_lagging`).',
            }),
          },
        },
      },
      (request) =>
        commitImport(
          ctx,
          spaceOf(request),
          request.params.importId,
          request.body,
          requester(request),
        ),
    );

    app.post(
      '/v1/spaces/:spaceId/imports/:importId/undo',
      {
        schema: {
          tags: ['data'],
          operationId: 'undoImport',
          summary: 'Undo a committed import',
          description:
            'Its memories and the block with its text are deleted for good, the memories it superseded are restored (unless something else superseded them), and knowledge-graph entries only it backed are removed. Undoing again answers the same.',
          params: ImportParams,
          response: {
            200: ImportView,
            ...errorResponses({
              404: NOT_FOUND,
              409: 'The import is not committed (`import_not_committed`).',
            }),
          },
        },
      },
      (request) => undoImport(ctx, spaceOf(request), request.params.importId, requester(request)),
    );
  };
}
