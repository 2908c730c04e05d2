/**
 * MM-RET-9 evidence refs: the strings agents cite back to the gate. Ids are the system's own
 * (`evt_…`, `node_…`, `blk_…`, `msg_…`) and never contain `:` or whitespace, so `:` can separate
 * the parts without escaping. Anything that does not fit the grammar parses to null.
 */
export type EvidenceRef =
  | { kind: 'event'; id: string }
  | { kind: 'graph-node'; id: string; expanded: boolean }
  | { kind: 'raw'; blockId: string; messageId: string; index: number }
  | { kind: 'block'; id: string; level: number };

export type EvidenceRefKind = EvidenceRef['kind'];

const ID = /^[^\s:]+$/;
const INDEX = /^(0|[1-9]\d*)$/;
const LEVEL = /^[0-5]$/;

const isId = (part: string | undefined): part is string => part !== undefined && ID.test(part);

export function parseRef(ref: string): EvidenceRef | null {
  const [kind, ...rest] = ref.split(':');
  switch (kind) {
    case 'event':
      return rest.length === 1 && isId(rest[0]) ? { kind, id: rest[0] } : null;
    case 'graph-node': {
      const [id, suffix] = rest;
      if (!isId(id)) return null;
      if (rest.length === 1) return { kind, id, expanded: false };
      return rest.length === 2 && suffix === 'expanded' ? { kind, id, expanded: true } : null;
    }
    case 'raw': {
      const [blockId, messageId, index] = rest;
      if (rest.length !== 3 || !isId(blockId) || !isId(messageId)) return null;
      if (index === undefined || !INDEX.test(index)) return null;
      return { kind, blockId, messageId, index: Number(index) };
    }
    case 'block': {
      const [id, word, level] = rest;
      if (rest.length !== 3 || !isId(id) || word !== 'level') return null;
      if (level === undefined || !LEVEL.test(level)) return null;
      return { kind, id, level: Number(level) };
    }
    default:
      return null;
  }
}

export function formatRef(ref: EvidenceRef): string {
  switch (ref.kind) {
    case 'event':
      return `event:${ref.id}`;
    case 'graph-node':
      return ref.expanded ? `graph-node:${ref.id}:expanded` : `graph-node:${ref.id}`;
    case 'raw':
      return `raw:${ref.blockId}:${ref.messageId}:${ref.index}`;
    case 'block':
      return `block:${ref.id}:level:${ref.level}`;
    default:
      return assertNever(ref);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled evidence ref ${JSON.stringify(value)}`);
}
