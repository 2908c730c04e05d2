import type { CivilDate, CivilRange } from './civil-date.ts';

/** One row of the supplementary time-rule table (`time-rules.ts`, `time-rules.zh.ts`). */
export interface RuleResolution {
  range: CivilRange;
  precision: 'day' | 'month' | 'year' | 'range';
  basis: 'relative' | 'explicit';
}

export interface TimeRule {
  name: string;
  /** Must carry the `g` flag; matched with `matchAll`. */
  pattern: RegExp;
  /** `at` is the mention day; null when the message time is unknown (MM-EVT-4). */
  resolve(match: RegExpExecArray, at: CivilDate | null): RuleResolution | null;
}

export const relative = (
  range: CivilRange,
  precision: RuleResolution['precision'] = 'range',
): RuleResolution => ({ range, precision, basis: 'relative' });
