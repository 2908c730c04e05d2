import { z } from 'zod';

/** Space ids: `project:<hex>`, `session:<id>`, `global:<name>` or any simple name (MM-SPACE-2). */
export const SpaceIdParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'space id: 1–128 of letters, digits, . _ : -');

export const IdParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, 'id: 1–200 of letters, digits, . _ : -');

export const ErrorBody = z.object({
  error: z.object({
    code: z
      .string()
      .describe('stable, machine-readable code, e.g. `invalid_request`, `space_not_found`'),
    message: z.string().describe('human-readable explanation; wording may change'),
    issues: z
      .array(
        z.object({
          in: z.string().optional().describe('body, params, querystring, headers or url'),
          path: z.string().describe('JSON pointer of the offending field, `/` for the whole'),
          message: z.string(),
        }),
      )
      .optional()
      .describe('400 only: one entry per failed field'),
    details: z.unknown().optional().describe('code-specific context, e.g. the rejected refs'),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
