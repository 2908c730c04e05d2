import { compressExtractively } from '@stratagate/domain';
import type { ProfileCompressionInput, ProfileCompressionResult } from '../model-port.ts';

/** Bump when the offline compression changes what it outputs. */
export const OFFLINE_PROFILE_PROMPT_VERSION = 'offline-profile-compression@1';

/**
 * MM-PRO-6 without a model: extractive and conservative (ADR 0050). Rewording could bring in a
 * fact, so it only drops sentences and lines a field repeats; a field without repeats is left
 * out of the answer (unchanged).
 */
export function compressProfileOffline(
  input: ProfileCompressionInput,
): ProfileCompressionResult['output'] {
  return {
    fields: input.fields.flatMap(({ field, value }) => {
      const compressed = compressExtractively(value);
      return compressed !== value ? [{ field, value: compressed }] : [];
    }),
  };
}
