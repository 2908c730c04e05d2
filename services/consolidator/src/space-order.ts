/** What the ordering needs of a due block. */
export interface OrderedBlock {
  tenant_id: string;
  space_id: string;
  /** The block's place in its space (seal order). */
  sequence: number;
}

/**
 * A space's extraction jobs read the events its earlier blocks yielded (the timeline), and its
 * graph jobs read and extend one graph. A job planned before the record of the job ahead of it is
 * projected would miss that record: the second of two graph jobs would create the nodes the first
 * one just created again, and the outcome would depend on how far the projector lags. So each of
 * these stages takes a space's blocks one at a time, in sequence order (MM-JOB-1): per space, the
 * first due block, unless its job already ran and its record is not projected yet (`inFlight`);
 * then the space waits. Spaces do not wait for each other.
 */
export function nextPerSpace<B extends OrderedBlock>(
  due: readonly B[],
  inFlight: (block: B) => boolean,
): B[] {
  const first = new Map<string, B>();
  for (const block of due) {
    const space = `${block.tenant_id}\u0000${block.space_id}`;
    const seen = first.get(space);
    if (!seen || block.sequence < seen.sequence) first.set(space, block);
  }
  return [...first.values()].filter((block) => !inFlight(block));
}
