import { z } from 'zod';

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, 'must not be blank');

export const TurnToolCall = z.object({
  name: nonBlank(200),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
});

export const TurnMessage = z.object({
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  name: nonBlank(200).optional().describe('speaker name, e.g. the person behind the user role'),
  content: z.string().max(200_000),
  toolCalls: z.array(TurnToolCall).max(64).optional(),
});

export const PostTurnBody = z
  .object({
    turnId: nonBlank(200).optional().describe('client id; the same id again is the same turn'),
    threadId: nonBlank(200).optional().describe("thread (session); 'default' when absent"),
    occurredAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("when the turn finished, ISO-8601; the caller's offset is kept"),
    messages: z.array(TurnMessage).min(1).max(64),
  })
  .meta({
    example: {
      turnId: 'turn-0001',
      threadId: 'session-42',
      occurredAt: '2023-05-08T13:56:00+08:00',
      messages: [
        { role: 'user', name: 'Caroline', content: 'We switched the project to pnpm.' },
        { role: 'assistant', content: 'Noted: the project now uses pnpm.' },
      ],
    },
  });
export type PostTurnBody = z.infer<typeof PostTurnBody>;

export const PostTurnReply = z.object({
  turnId: z.string(),
  threadId: z.string(),
  position: z.number().describe('global log position of the turn record'),
  spaceVersion: z.number(),
  spaceTurn: z.number(),
  threadTurn: z.number(),
  sealedBlockId: z.string().nullable(),
});
export type PostTurnReply = z.infer<typeof PostTurnReply>;

export const SpaceSettingsBody = z
  .object({
    blockSize: z.number().int().min(1).max(200).optional().describe('turns per block (default 12)'),
    decayLambda: z
      .number()
      .finite()
      .min(0)
      .max(5)
      .optional()
      .describe('block fading rate λ (default 0.30; above 0.4 discouraged)'),
  })
  .refine(
    (b) => b.blockSize !== undefined || b.decayLambda !== undefined,
    'give blockSize or decayLambda',
  );

export const RetryBody = z.object({
  job: z.enum(['summary', 'extraction', 'graph']).default('summary'),
});
