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
    code: z.string(),
    message: z.string(),
    issues: z
      .array(z.object({ in: z.string().optional(), path: z.string(), message: z.string() }))
      .optional(),
    details: z.unknown().optional(),
  }),
});
