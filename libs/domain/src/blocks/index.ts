export { codePointLength, estimateTokens, takeCodePoints } from './tokens.ts';
export type { LayerMessage, LayerToolCall } from './layer-message.ts';
export { parseToolJson, summarizeToolResult } from './tool-summary.ts';
export { dropFillers, FILLER_PHRASES } from './fillers.ts';
export { dedupePastes, REPEATED_PASTE_MARKER } from './paste-dedupe.ts';
export { deriveLayers, renderL3, renderL4, renderL5, type BlockLayers } from './layers.ts';
export { compactForModel, type CompactedValue } from './compaction.ts';
export {
  decayedLevel,
  decayWeight,
  DEFAULT_DECAY_LAMBDA,
  levelDrop,
  validateDecayLambda,
  type DecayInput,
} from './decay.ts';
export { decideBlockExpansion, resolveExpandTarget, type ExpandBlockCommand } from './expansion.ts';
export {
  levelLabel,
  parseLevel,
  rawLayerOf,
  renderBlockLevel,
  type BlockContent,
  type BlockLevel,
  type DerivedContent,
  type RawLayer,
} from './views.ts';
