import type { ColumnTypes } from './json-rows.ts';
import type { ProfileTables } from './profiles.tables.ts';
import type { TopicTables } from './topics.tables.ts';

/** Row shapes of the read model (snake_case, as Postgres returns them). */
export interface SpaceRow {
  tenant_id: string;
  space_id: string;
  block_size: number;
  decay_lambda: number;
  turn_counter: number;
  block_count: number;
  applied_position: number;
  /** The tenant profile the space reads (ADR 0050). */
  profile_id: string;
}

export interface ThreadRow {
  tenant_id: string;
  space_id: string;
  thread_id: string;
  turn_count: number;
  ready_count: number;
  applied_position: number;
}

export interface TurnRow {
  tenant_id: string;
  space_id: string;
  turn_id: string;
  thread_id: string;
  space_turn: number;
  thread_turn: number;
  occurred_at: string;
  block_id: string | null;
  position: number;
  applied_position: number;
}

export interface MessageRow {
  tenant_id: string;
  space_id: string;
  message_id: string;
  turn_id: string;
  thread_id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  name: string | null;
  content: string;
  tool_calls: { name: string; arguments?: unknown; result?: unknown }[];
  occurred_at: string;
  space_turn: number;
  thread_turn: number;
}

/** SQL types of the turns' columns, for inserts through one jsonb parameter (json-rows.ts). */
export const TURN_COLUMN_TYPES: ColumnTypes<TurnRow> = {
  tenant_id: 'text',
  space_id: 'text',
  turn_id: 'text',
  thread_id: 'text',
  space_turn: 'int',
  thread_turn: 'int',
  occurred_at: 'text',
  block_id: 'text',
  position: 'bigint',
  applied_position: 'bigint',
};

/** SQL types of the messages' columns (json-rows.ts). */
export const MESSAGE_COLUMN_TYPES: ColumnTypes<MessageRow> = {
  tenant_id: 'text',
  space_id: 'text',
  message_id: 'text',
  turn_id: 'text',
  thread_id: 'text',
  seq: 'int',
  role: 'text',
  name: 'text',
  content: 'text',
  tool_calls: 'jsonb',
  occurred_at: 'text',
  space_turn: 'int',
  thread_turn: 'int',
};

export type SummaryStatus = 'pending' | 'succeeded' | 'failed';
export type ExtractionStatus = 'pending' | 'succeeded' | 'skipped' | 'failed';

export interface BlockRow {
  tenant_id: string;
  space_id: string;
  block_id: string;
  thread_id: string;
  sequence: number;
  turn_from: number;
  turn_to: number;
  space_turn_to: number;
  sealed_at: string;
  status: 'pending' | 'ready';
  l3: string;
  l4: string;
  l5: string;
  tokens_l3: number;
  tokens_l4: number;
  tokens_l5: number;
  title: string | null;
  tags: string[] | null;
  summary: string | null;
  key_points: string[] | null;
  should_extract: boolean | null;
  model: unknown;
  summary_status: SummaryStatus;
  summary_attempts: number;
  summary_cycle: number;
  summary_next_retry_at: Date | null;
  summary_last_error: string | null;
  extraction_status: ExtractionStatus;
  ready_position: number | null;
  anchor_position: number | null;
  anchor_level: number | null;
  last_lifted_at: string | null;
  last_lifted_by: string | null;
  extraction_attempts: number;
  extraction_cycle: number;
  extraction_next_retry_at: Date | null;
  extraction_last_error: string | null;
  event_count: number;
  graph_status: 'none' | 'pending' | 'completed' | 'failed';
  graph_attempts: number;
  graph_cycle: number;
  graph_next_retry_at: Date | null;
  graph_last_error: string | null;
  applied_position: number;
}

export interface GraphNodeRow {
  tenant_id: string;
  space_id: string;
  node_id: string;
  name: string;
  normalised_name: string;
  type: 'person' | 'project' | 'organization' | 'tool' | 'place';
  aliases: { value: string; sourceEventIds: string[]; visible: boolean }[];
  tags: { value: string; sourceEventIds: string[] }[];
  status: 'active' | 'superseded' | 'disputed' | 'archived';
  confidence: number;
  source_event_ids: string[];
  name_source_event_ids: string[];
  created_position: number;
  applied_position: number;
}

export interface GraphFactRow {
  tenant_id: string;
  space_id: string;
  fact_id: string;
  node_id: string;
  key: string;
  value: string | string[];
  status: 'active' | 'superseded' | 'disputed' | 'archived';
  confidence: number;
  source_event_ids: string[];
  valid_from: string | null;
  valid_to: string | null;
  superseded_by: string | null;
  applied_position: number;
}

export interface GraphEdgeRow {
  tenant_id: string;
  space_id: string;
  edge_id: string;
  from_id: string;
  to_id: string;
  relation: string;
  status: 'active' | 'superseded' | 'disputed' | 'archived';
  confidence: number;
  source_event_ids: string[];
  valid_from: string | null;
  valid_to: string | null;
  superseded_by: string | null;
  applied_position: number;
}

export type MemoryEventStatus = 'active' | 'superseded' | 'forgotten' | 'archived';

export interface MemoryEventRow {
  tenant_id: string;
  space_id: string;
  event_id: string;
  /** Null only for agent events citing open-tail messages (MM-EVT-2). */
  source_block_id: string | null;
  thread_id: string | null;
  title: string;
  summary: string;
  tags: string[];
  quotes: string[];
  source_message_ids: string[];
  scope: 'user' | 'project' | 'session';
  criticality: 'routine' | 'preference' | 'identity' | 'safety';
  event_type: string;
  temporal: Record<string, unknown>;
  mentioned_at: string | null;
  happened_start: string | null;
  happened_end: string | null;
  status: MemoryEventStatus;
  superseded_by: string | null;
  mention_count: number;
  last_adopted_turn: number;
  last_retrieved_at: string | null;
  pinned: boolean;
  forced_cap: number | null;
  catalog_hints: string[];
  extractor_version: number | null;
  formed_turn: number;
  block_sequence: number;
  created_at: string;
  updated_at: string;
  record_position: number;
  participant_node_ids: string[];
  pool: 'extracted' | 'agent';
  /** Events that marked a conflict with this one after it was written (MM-EVT-10). */
  conflicts_with: string[];
  applied_position: number;
}

export interface EvidenceBatchRow {
  tenant_id: string;
  space_id: string;
  batch_id: string;
  thread_id: string;
  operation: string;
  query: string;
  refs: string[];
  status: 'unresolved' | 'recorded';
  verdict: 'sufficient' | 'partial' | 'wrong' | null;
  accepted_refs: string[];
  assessment: Record<string, unknown> | null;
  receipt_id: string | null;
  opened_at: string;
  opened_position: number;
  applied_position: number;
}

/** A sealed block waiting for the raw-search indexing lane (ADR 0014). */
export interface MessageIndexQueueRow {
  tenant_id: string;
  space_id: string;
  block_id: string;
  /** The seal's global log position and space version. */
  position: number;
  space_version: number;
}

export interface ReadModelTables extends ProfileTables, TopicTables {
  checkpoints: { name: string; position: number };
  spaces: SpaceRow;
  threads: ThreadRow;
  turns: TurnRow;
  messages: MessageRow;
  blocks: BlockRow;
  memory_events: MemoryEventRow;
  graph_nodes: GraphNodeRow;
  graph_facts: GraphFactRow;
  graph_edges: GraphEdgeRow;
  evidence_batches: EvidenceBatchRow;
  message_index_queue: MessageIndexQueueRow;
}
