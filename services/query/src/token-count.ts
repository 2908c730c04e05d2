import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Budgets are counted with a real BPE tokenizer (o200k_base, the encoding of current OpenAI
 * models; see ADR 0006). Other model families tokenise differently, so budgets are approximate
 * for them, but far closer than a character heuristic.
 */
export const TOKENIZER = 'o200k_base (gpt-tokenizer)';
export const tokenCount = (text: string): number => countTokens(text);
