import { parseRef } from './refs.ts';

export type BatchStatus = 'unresolved' | 'recorded';

export interface AdoptionBatch {
  id: string;
  status: BatchStatus;
  /** Every ref the batch's results exposed. */
  refs: ReadonlySet<string>;
  /** Refs accepted by the batch's latest assessment if it was sufficient; empty otherwise. */
  acceptedRefs: ReadonlySet<string>;
}

export type AdoptionRejectionReason = 'invalid_ref' | 'not_in_batch' | 'not_adopted';

export interface InvalidAdoptionRef {
  inputIndex: number;
  ref: unknown;
  reason: AdoptionRejectionReason;
  detail: string;
}

export type AdoptionValidation =
  | { ok: true; batchId: string; evidenceRefs: string[]; duplicateEvidenceRefs: string[] }
  | {
      ok: false;
      batchId: string;
      batchStatus: BatchStatus;
      /** `batch_recorded`: a new receipt on a closed batch; a retried receipt never gets here. */
      error: 'invalid_refs' | 'batch_recorded';
      invalidRefs: InvalidAdoptionRef[];
    };

/**
 * MM-GATE-7/8. All-or-nothing: adopting part of a list would leave weights that reflect neither
 * what the agent claimed nor what it may claim. Only refs the sufficient assessment accepted can be
 * adopted, so evidence the gate never saw cannot raise a weight. `[]` always closes the batch.
 * Receipt idempotency is checked by the caller first, so a retry of a recorded adoption is a no-op
 * rather than a `batch_recorded` error.
 */
export function validateAdoption(input: {
  refs: readonly unknown[];
  batch: AdoptionBatch;
}): AdoptionValidation {
  const { refs, batch } = input;
  const fail = (error: 'invalid_refs' | 'batch_recorded', invalidRefs: InvalidAdoptionRef[]) =>
    ({ ok: false, batchId: batch.id, batchStatus: batch.status, error, invalidRefs }) as const;
  if (batch.status === 'recorded') return fail('batch_recorded', []);

  const evidenceRefs: string[] = [];
  const duplicates = new Set<string>();
  const invalidRefs: InvalidAdoptionRef[] = [];
  const seen = new Set<string>();
  refs.forEach((raw, inputIndex) => {
    const reject = (reason: AdoptionRejectionReason, detail: string): void => {
      invalidRefs.push({ inputIndex, ref: raw, reason, detail });
    };
    const ref = typeof raw === 'string' ? raw.trim() : '';
    if (ref === '') return reject('invalid_ref', 'a ref must be a non-empty string');
    // Duplicates are reported, not errors (MM-GATE-7): the first occurrence alone is judged.
    if (seen.has(ref)) return void duplicates.add(ref);
    seen.add(ref);
    if (!batch.refs.has(ref)) return reject('not_in_batch', `${ref} is not in ${batch.id}`);
    if (!batch.acceptedRefs.has(ref)) {
      return reject('not_adopted', `${ref} was not accepted by a sufficient assessment`);
    }
    evidenceRefs.push(ref);
  });
  if (invalidRefs.length > 0) return fail('invalid_refs', invalidRefs);
  return { ok: true, batchId: batch.id, evidenceRefs, duplicateEvidenceRefs: [...duplicates] };
}

export type ReinforceableStatus = 'active' | 'superseded' | 'forgotten' | 'archived';

export interface ReinforcementLookups {
  eventStatus(eventId: string): ReinforceableStatus | undefined;
  /** The node's provenance event ids, most relevant first; undefined if the node is unknown. */
  graphNodeProvenance(nodeId: string): readonly string[] | undefined;
}

export const MAX_NODE_PROVENANCE = 6;

/**
 * MM-WGT-3/5: which events an accepted adoption reinforces, each at most once per call. Raw and
 * block refs point at transcript, not at a memory, so they reinforce nothing. Hidden events are
 * skipped before the 6-cap so a node reinforces the provenance the agent could actually see.
 */
export function reinforcementTargets(
  refs: readonly string[],
  lookups: ReinforcementLookups,
): string[] {
  const out: string[] = [];
  const taken = new Set<string>();
  const visible = (id: string): boolean => {
    const status = lookups.eventStatus(id);
    return status === 'active' || status === 'superseded';
  };
  const take = (id: string): void => {
    if (taken.has(id)) return;
    taken.add(id);
    out.push(id);
  };
  for (const raw of refs) {
    const ref = parseRef(raw.trim());
    if (ref === null) continue;
    switch (ref.kind) {
      case 'event':
        if (visible(ref.id)) take(ref.id);
        break;
      case 'graph-node': {
        const provenance = (lookups.graphNodeProvenance(ref.id) ?? []).filter(visible);
        provenance.slice(0, MAX_NODE_PROVENANCE).forEach(take);
        break;
      }
      case 'raw':
      case 'block':
        break;
      default:
        return assertNever(ref);
    }
  }
  return out;
}

function assertNever(value: never): never {
  throw new Error(`unhandled evidence ref ${JSON.stringify(value)}`);
}
