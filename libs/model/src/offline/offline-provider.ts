import { ModelError, type BlockSummaryInput, type ModelPort } from '../model-port.ts';
import { validateBlockSummary, type BlockSummaryOutput } from '../summary.schema.ts';
import { analyseBlock } from './block-analysis.ts';
import { pickKeyPoints } from './key-points.ts';
import { rankTerms, topTermWeights } from './ranking.ts';
import { pickSummary } from './summary-text.ts';
import { pickTags } from './tags.ts';
import { pickTitle } from './title.ts';
import { withClaimTags } from './claim-tags.ts';
import {
  extractEventsOffline,
  OFFLINE_EXTRACT_PROMPT_VERSION,
} from './extraction/extract-events.ts';
import { OFFLINE_GRAPH_PROMPT_VERSION, proposeGraphOffline } from './graph/propose-graph.ts';
import { compressProfileOffline, OFFLINE_PROFILE_PROMPT_VERSION } from './profile-compression.ts';
import { buildTopicsOffline, OFFLINE_TOPICS_PROMPT_VERSION } from './topics/build-topics.ts';

export const OFFLINE_PROVIDER_NAME = 'offline-heuristic';
/** Bump when the heuristic changes what it outputs, so re-consolidation can tell versions apart. */
export const OFFLINE_PROMPT_VERSION = 'offline-summary@1';

/** Said only when a block has no text and no tool output at all; better than a stuck block. */
const EMPTY_TITLE = 'Empty block';
const EMPTY_SUMMARY = 'This block contains no text.';

/**
 * The default model when none is configured: deterministic (no clock, no randomness, a
 * pinned segmenter locale) and extractive (every title, sentence and point comes from the
 * block). It reads only what it is given; `previousSummary` is ignored because reusing it
 * would carry text from outside the block.
 */
export function createOfflineProvider(): ModelPort {
  return {
    name: OFFLINE_PROVIDER_NAME,
    deterministic: true,
    summarizeBlock(input, options) {
      if (options?.signal?.aborted) {
        return Promise.reject(new ModelError('summary aborted', 'aborted', true));
      }
      try {
        return Promise.resolve({
          output: summarizeOffline(input),
          provider: OFFLINE_PROVIDER_NAME,
          promptVersion: OFFLINE_PROMPT_VERSION,
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    extractMemoryEvents(input, options) {
      if (options?.signal?.aborted) {
        return Promise.reject(new ModelError('extraction aborted', 'aborted', true));
      }
      try {
        return Promise.resolve({
          output: extractEventsOffline(input),
          provider: OFFLINE_PROVIDER_NAME,
          promptVersion: OFFLINE_EXTRACT_PROMPT_VERSION,
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    proposeGraph(input, options) {
      if (options?.signal?.aborted) {
        return Promise.reject(new ModelError('graph proposal aborted', 'aborted', true));
      }
      try {
        return Promise.resolve({
          output: proposeGraphOffline(input),
          provider: OFFLINE_PROVIDER_NAME,
          promptVersion: OFFLINE_GRAPH_PROMPT_VERSION,
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    compressProfile(input, options) {
      if (options?.signal?.aborted) {
        return Promise.reject(new ModelError('profile compression aborted', 'aborted', true));
      }
      return Promise.resolve({
        output: compressProfileOffline(input),
        provider: OFFLINE_PROVIDER_NAME,
        promptVersion: OFFLINE_PROFILE_PROMPT_VERSION,
      });
    },
    buildTopics(input, options) {
      if (options?.signal?.aborted) {
        return Promise.reject(new ModelError('topic building aborted', 'aborted', true));
      }
      try {
        return Promise.resolve({
          output: buildTopicsOffline(input),
          provider: OFFLINE_PROVIDER_NAME,
          promptVersion: OFFLINE_TOPICS_PROMPT_VERSION,
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

export function summarizeOffline(input: BlockSummaryInput): BlockSummaryOutput {
  const analysis = analyseBlock(input);
  const terms = rankTerms(analysis.content);
  const weights = topTermWeights(terms);
  const empty = analysis.fallback === '';
  const summary = empty ? EMPTY_SUMMARY : pickSummary(analysis, weights);
  const keyPoints = pickKeyPoints(analysis, weights);
  // Validation also normalises (and falls back to the summary for empty points); an error
  // here is a bug in the heuristic, surfaced like any other invalid model output.
  return validateBlockSummary({
    title: empty ? EMPTY_TITLE : pickTitle(analysis, weights),
    tags: withClaimTags(pickTags(terms, analysis), analysis),
    summary,
    keyPoints: keyPoints.length > 0 ? keyPoints : [summary],
    shouldExtract: analysis.content.some(
      (s) => s.signals.length > 0 || s.terms.length >= 2 || s.terms.some((t) => t.proper),
    ),
  });
}
