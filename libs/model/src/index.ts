export {
  ModelError,
  type BlockSummaryInput,
  type ExtractionInput,
  type ExtractionResult,
  type BlockSummaryResult,
  type ModelPort,
  type ModelUsage,
  type SummaryMessage,
} from './model-port.ts';
export {
  BlockSummaryOutput,
  InvalidModelOutputError,
  validateBlockSummary,
  KEY_POINTS_MAX,
  TAGS_MAX,
  TITLE_MAX,
} from './summary.schema.ts';
export {
  createOfflineProvider,
  OFFLINE_PROMPT_VERSION,
  OFFLINE_PROVIDER_NAME,
} from './offline/offline-provider.ts';
export * from './extraction.schema.ts';
