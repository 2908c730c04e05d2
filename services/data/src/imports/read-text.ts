import {
  parseJsonText,
  readExternalMemory,
  recoverJsonText,
  type FormatProblem,
  type ParsedExternalMemory,
} from '@stratagate/domain';
import { AppError } from '@stratagate/http';
import { DEFAULT_MODEL_TIMEOUT_MS, type ImportServices } from './job-items.ts';

/** The text as an export (MM-IMP-2): as it stands, else recovered by the model, else leniently. */
export async function readText(
  imports: ImportServices,
  text: string,
): Promise<Extract<ParsedExternalMemory, { ok: true }>> {
  const json = parseJsonText(text);
  const attempts: ParsedExternalMemory[] = [];
  if (json !== undefined) {
    attempts.push(readExternalMemory(json, false));
  } else {
    const model = imports.model;
    if (model?.recoverExternalMemory) {
      try {
        const repaired = await model.recoverExternalMemory(
          { text },
          { signal: AbortSignal.timeout(imports.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS) },
        );
        attempts.push(readExternalMemory(repaired.output, true));
      } catch {
        // The model could not repair it: the lenient reading below may still.
      }
    }
    const lenient = recoverJsonText(text);
    if (lenient !== null) attempts.push(readExternalMemory(lenient, true));
  }
  const ok = attempts.find((a) => a.ok);
  if (ok?.ok) return ok;
  const invalid = attempts.find((a) => !a.ok && a.reason === 'invalid');
  if (invalid && !invalid.ok && invalid.reason === 'invalid') throw formatInvalid(invalid.problems);
  throw new AppError(
    400,
    'import_not_json',
    'the text is not JSON and could not be read as an export; send the JSON document itself',
    undefined,
    [{ in: 'body', path: '/text', message: 'not JSON' }],
  );
}

function formatInvalid(problems: FormatProblem[]): AppError {
  const shown = problems.slice(0, 50);
  return new AppError(
    400,
    'import_format_invalid',
    shown
      .slice(0, 3)
      .map((p) =>
        p.candidate === null
          ? `${p.field}: ${p.message}`
          : `candidate ${p.candidate}, field ${p.field}: ${p.message}`,
      )
      .join('; '),
    { problems: shown },
    shown.map((p) => ({
      in: 'body' as const,
      path: '/text',
      message:
        p.candidate === null
          ? `${p.field}: ${p.message}`
          : `candidate ${p.candidate}, field ${p.field}: ${p.message}`,
    })),
  );
}
