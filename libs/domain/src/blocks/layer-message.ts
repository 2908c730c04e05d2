/** One tool trace as ingested (MM-BLK-1); L5 keeps it verbatim, L3/L4 only name and summarise it. */
export interface LayerToolCall {
  name: string;
  arguments?: unknown;
  result?: unknown;
}

/** One message of a block, in block order: the input to every layer renderer. */
export interface LayerMessage {
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  toolCalls?: LayerToolCall[];
}
