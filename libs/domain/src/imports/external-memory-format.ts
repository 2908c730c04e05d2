import { z } from 'zod';
import { codePointLength } from '../blocks/tokens.ts';

/** MM-IMP-2: the formats an external memory export may declare. */
export const EXTERNAL_MEMORY_V2 = 'stratagate.external-memory.v2';
export const EXTERNAL_MEMORY_V1 = 'stratagate.external-memory.v1';
export const EXTERNAL_AI_MEMORY_EXPORT = 'external_ai_memory_export';
export const IMPORT_MAX_CANDIDATES = 200;

export const MEMORY_KINDS = ['instruction', 'preference', 'fact', 'event'] as const;
export const MEMORY_CATEGORIES = [
  'instruction',
  'identity',
  'career',
  'project',
  'preference',
] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

/** A string of at most `max` code points (MM-GEN-4: a "reject" limit). */
const text = (max: number) =>
  z.string().refine((s) => codePointLength(s) <= max, { message: `longer than ${max} characters` });
const required = (max: number) =>
  text(max).refine((s) => s.trim() !== '', { message: 'must not be blank' });

const CandidateTemporal = z.strictObject({
  mentionedAt: text(200).optional(),
  happenedStart: text(200).optional(),
  happenedEnd: text(200).optional(),
  originalText: text(200).optional(),
  precision: z.enum(['instant', 'day', 'month', 'year', 'range', 'unknown']).optional(),
  basis: z.enum(['explicit', 'relative', 'inferred', 'unknown']).optional(),
  status: z.enum(['occurred', 'planned', 'cancelled', 'ongoing', 'unknown']).optional(),
  participants: z.array(text(200)).max(24).optional(),
  eventType: text(80).optional(),
});

const candidateFields = {
  title: required(160),
  summary: required(2000),
  narrative: text(8000).optional(),
  tags: z.array(required(80)).max(12).optional(),
  quotes: z.array(text(500)).max(12).optional(),
  temporal: CandidateTemporal.optional(),
  scope: z.enum(['user', 'project', 'session']).optional(),
  criticality: z.enum(['routine', 'preference', 'identity', 'safety']).optional(),
  confidence: z.number().min(0).max(1).optional(),
};

const CandidateV2 = z.strictObject({
  ...candidateFields,
  memoryKind: z.enum(MEMORY_KINDS).optional(),
  category: z.enum(MEMORY_CATEGORIES).optional(),
});

/** v1 had one `category` for both what a memory is and what it is about. */
const CandidateV1 = z.strictObject({
  ...candidateFields,
  category: z.enum([...MEMORY_CATEGORIES, 'fact', 'event']).optional(),
});

const documentFields = {
  sourceType: z.literal(EXTERNAL_AI_MEMORY_EXPORT).optional(),
  sourceSystem: required(200).optional(),
  exportedAt: text(200).optional(),
  coverage: z.enum(['full', 'partial', 'limited']).optional(),
  coverageNote: text(2000).optional(),
  uncertainItems: z.array(text(500)).max(IMPORT_MAX_CANDIDATES).optional(),
};

const candidates = <T extends z.ZodType>(candidate: T) =>
  z
    .array(candidate)
    .max(IMPORT_MAX_CANDIDATES, { message: `more than ${IMPORT_MAX_CANDIDATES} candidates` });

const DocumentV2 = z.strictObject({
  format: z.literal(EXTERNAL_MEMORY_V2),
  ...documentFields,
  candidates: candidates(CandidateV2).optional(),
  events: candidates(CandidateV2).optional(),
});
const DocumentV1 = z.strictObject({
  format: z.literal(EXTERNAL_MEMORY_V1),
  ...documentFields,
  candidates: candidates(CandidateV1).optional(),
  events: candidates(CandidateV1).optional(),
});

/** One candidate memory, as every later step sees it whatever version it came in. */
export interface ImportCandidate {
  memoryKind: MemoryKind;
  category: MemoryCategory | null;
  title: string;
  summary: string;
  narrative: string | null;
  tags: string[];
  quotes: string[];
  temporal: z.infer<typeof CandidateTemporal>;
  scope: 'user' | 'project' | 'session';
  criticality: 'routine' | 'preference' | 'identity' | 'safety';
  /** How sure the exporting AI was (metadata; the decision has its own confidence). */
  confidence: number | null;
}

export interface ExternalMemoryDocument {
  format: 'v1' | 'v2';
  sourceType: typeof EXTERNAL_AI_MEMORY_EXPORT;
  sourceSystem: string;
  exportedAt: string | null;
  coverage: 'full' | 'partial' | 'limited';
  coverageNote: string | null;
  uncertainItems: string[];
  candidates: ImportCandidate[];
}

/** A place in the document that broke a rule: the candidate's index (if any) and its field. */
export interface FormatProblem {
  candidate: number | null;
  field: string;
  message: string;
}

export type ParsedExternalMemory =
  | { ok: true; document: ExternalMemoryDocument; recovered: boolean }
  | { ok: false; reason: 'not_json' }
  | { ok: false; reason: 'invalid'; problems: FormatProblem[] };

/** A whole text in one Markdown code fence (```json … ```) is the text inside it. */
export function stripFences(raw: string): string {
  const trimmed = raw.replace(/^\uFEFF/, '').trim();
  const fenced = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed);
  return (fenced ? fenced[1]! : trimmed).trim();
}

/**
 * What a lenient reader makes of a text that is not JSON as it stands: the outermost object in
 * it (an AI's "Here is your export: {…} Let me know…"), with trailing commas dropped. Null when
 * that is not JSON either. A recovered document is never trusted blindly (MM-IMP-6).
 */
export function recoverJsonText(raw: string): unknown {
  const start = raw.indexOf('{');
  const end = raw.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  const slice = raw.slice(start, end + 1).replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(slice) as unknown;
  } catch {
    return null;
  }
}

/** Parses the text as it stands (fences stripped): JSON, or `undefined` when it is not. */
export function parseJsonText(raw: string): unknown {
  try {
    return JSON.parse(stripFences(raw)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * MM-IMP-2: checks a parsed export against its declared format and normalises it. Every
 * problem names its candidate and field, so an exporter can be told exactly what to fix.
 */
export function readExternalMemory(json: unknown, recovered: boolean): ParsedExternalMemory {
  const format =
    typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as { format?: unknown }).format
      : undefined;
  if (format !== EXTERNAL_MEMORY_V2 && format !== EXTERNAL_MEMORY_V1) {
    return {
      ok: false,
      reason: 'invalid',
      problems: [
        {
          candidate: null,
          field: 'format',
          message: `must be "${EXTERNAL_MEMORY_V2}" (or "${EXTERNAL_MEMORY_V1}")`,
        },
      ],
    };
  }
  const parsed = (format === EXTERNAL_MEMORY_V2 ? DocumentV2 : DocumentV1).safeParse(json);
  if (!parsed.success) {
    return { ok: false, reason: 'invalid', problems: parsed.error.issues.map(problemOf) };
  }
  const d = parsed.data;
  if (d.candidates !== undefined && d.events !== undefined) {
    return {
      ok: false,
      reason: 'invalid',
      problems: [
        { candidate: null, field: 'events', message: 'give either candidates or events, not both' },
      ],
    };
  }
  const list = d.candidates ?? d.events ?? [];
  return {
    ok: true,
    recovered,
    document: {
      format: format === EXTERNAL_MEMORY_V2 ? 'v2' : 'v1',
      sourceType: EXTERNAL_AI_MEMORY_EXPORT,
      sourceSystem: d.sourceSystem?.trim() ?? 'unknown',
      exportedAt: d.exportedAt ?? null,
      coverage: d.coverage ?? 'partial',
      coverageNote: d.coverageNote ?? null,
      uncertainItems: d.uncertainItems ?? [],
      candidates: list.map((c) => normaliseCandidate(c as z.infer<typeof CandidateV2>, format)),
    },
  };
}

/** The text as an export: fences stripped; not JSON → recovered leniently, or refused. */
export function parseExternalMemory(raw: string): ParsedExternalMemory {
  const json = parseJsonText(raw);
  if (json !== undefined) return readExternalMemory(json, false);
  const recovered = recoverJsonText(raw);
  if (recovered === null) return { ok: false, reason: 'not_json' };
  return readExternalMemory(recovered, true);
}

function normaliseCandidate(
  c: z.infer<typeof CandidateV2> | (z.infer<typeof CandidateV1> & { memoryKind?: undefined }),
  format: string,
): ImportCandidate {
  let memoryKind: MemoryKind = c.memoryKind ?? 'fact';
  let category: MemoryCategory | null = (c.category as MemoryCategory | undefined) ?? null;
  if (format === EXTERNAL_MEMORY_V1) {
    const v1 = c.category as string | undefined;
    if (v1 === 'fact' || v1 === 'event') [memoryKind, category] = [v1, null];
    else if (v1 === 'instruction' || v1 === 'preference') memoryKind = v1;
  }
  return {
    memoryKind,
    category,
    title: c.title.trim(),
    summary: c.summary.trim(),
    narrative: c.narrative ?? null,
    tags: c.tags ?? [],
    quotes: c.quotes ?? [],
    temporal: c.temporal ?? {},
    scope: c.scope ?? 'user',
    criticality: c.criticality ?? 'routine',
    confidence: c.confidence ?? null,
  };
}

function problemOf(issue: z.core.$ZodIssue): FormatProblem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const inList = path[0] === 'candidates' || path[0] === 'events';
  const index = inList && typeof path[1] === 'number' ? path[1] : null;
  const rest = index === null ? path : path.slice(2);
  let field = rest.map(String).join('.') || String(path[0] ?? 'document');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    field = [...rest.map(String), keys[0]].join('.');
    message = `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}`;
  }
  return { candidate: index, field, message };
}
