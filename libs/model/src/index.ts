export {
  ModelError,
  type BlockSummaryInput,
  type ExtractionInput,
  type ExtractionResult,
  type GraphProposalResult,
  type BlockSummaryResult,
  type ExternalMemoryRecoveryResult,
  type ImportDeciderInput,
  type ImportDecisionOutput,
  type ImportDecisionResult,
  type ModelPort,
  type ModelUsage,
  type ProfileCompressionInput,
  type ProfileCompressionResult,
  type SummaryMessage,
  type TopicBuildResult,
} from './model-port.ts';
export {
  BlockSummaryOutput,
  InvalidModelOutputError,
  validateBlockSummary,
  KEY_POINTS_MAX,
  TAGS_MAX,
  TITLE_MAX,
} from './summary.schema.ts';
export { createOfflineProviderThread, type ThreadedModelPort } from './offline/offline-thread.ts';
export {
  createOfflineProvider,
  OFFLINE_PROMPT_VERSION,
  OFFLINE_PROVIDER_NAME,
} from './offline/offline-provider.ts';
export * from './extraction.schema.ts';
export { createOpenAiCompatibleProvider, OPENAI_PROVIDER_NAME } from './openai/openai-provider.ts';
export {
  loadModelConfigFromEnv,
  MODEL_ENV,
  type OpenAiCompatibleConfig,
  type ResponseFormatMode,
} from './openai/config.ts';
export { blockSummaryPrompt } from './openai/prompts/block-summary.prompt.ts';
export { memoryEventsPrompt } from './openai/prompts/memory-events.prompt.ts';
export { rememberDeciderPrompt } from './openai/prompts/remember-decider.prompt.ts';
export { profileCompressionPrompt } from './openai/prompts/profile-compression.prompt.ts';
export { importDeciderPrompt } from './openai/prompts/import-decider.prompt.ts';
export { externalMemoryRecoveryPrompt } from './openai/prompts/external-memory-recovery.prompt.ts';
export type { ChatMessage, PromptModule } from './openai/prompts/prompt-module.ts';
export {
  extractEventsOffline,
  OFFLINE_EXTRACT_PROMPT_VERSION,
} from './offline/extraction/extract-events.ts';
export * from './graph.schema.ts';
export { graphProjectionPrompt } from './openai/prompts/graph-projection.prompt.ts';
export {
  OFFLINE_GRAPH_PROMPT_VERSION,
  proposeGraphOffline,
} from './offline/graph/propose-graph.ts';
export {
  createJsonChat,
  JsonChatOutputError,
  type JsonChat,
  type JsonChatCost,
  type JsonChatResult,
} from './openai/json-chat.ts';
export * from './topics.schema.ts';
export { topicsPrompt } from './openai/prompts/topics.prompt.ts';
export {
  buildTopicsOffline,
  OFFLINE_TOPICS_PROMPT_VERSION,
} from './offline/topics/build-topics.ts';
