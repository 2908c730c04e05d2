import type { GraphProposal, GraphProposalInput } from '../../graph.schema.ts';
import { eventProject, indexProjects, readEvent } from './event-reading.ts';
import { applyClaim } from './claim-findings.ts';
import { LINK_TARGET } from './findings.ts';
import { createProposalBuilder } from './proposal-builder.ts';
import { personSubject, projectSubject, stateSubject, type Scope } from './subject-resolution.ts';

/** Bump when the heuristic changes what it proposes, so re-projection can tell versions apart. */
export const OFFLINE_GRAPH_PROMPT_VERSION = 'offline-graph@2';

/**
 * The offline graph proposer (MM-GRF-1/2/3): deterministic and extractive. Every name is
 * copied from an event's title, summary, tags or participants; every edge and fact comes from
 * a cue word in one event and cites only that event. What the text does not say plainly
 * (a subject it leaves implicit, a state it only implies) is left out, never guessed.
 */
export function proposeGraphOffline(input: GraphProposalInput): GraphProposal {
  const seen = new Set<string>();
  const events = input.events.filter((e) => {
    // An event without a usable id cannot be cited; a repeated id adds nothing.
    if (e.id.trim() === '' || seen.has(e.id)) return false;
    seen.add(e.id);
    return true;
  });
  const readings = events.map(readEvent);
  const index = indexProjects(readings, input.nodes);
  const builder = createProposalBuilder(
    input.nodes,
    readings.flatMap((r) => r.people),
  );
  let unresolved = 0;
  for (const reading of readings) {
    unresolved += projectEvent({ reading, index, builder, projectRef: undefined });
  }
  const proposal = builder.build('');
  const facts = proposal.nodes.reduce((n, node) => n + node.facts.length, 0);
  const reason =
    `offline heuristic (${OFFLINE_GRAPH_PROMPT_VERSION}) over ${events.length} events: ` +
    `${proposal.nodes.length} nodes, ${proposal.edges.length} edges, ${facts} facts, read from cue words` +
    (unresolved > 0
      ? `; left out ${unresolved} edge or state claims whose subject the text does not name`
      : '');
  return { ...proposal, reason };
}

/**
 * Adds one event's nodes, edges and facts. Returns how many claims stayed without a subject
 * (title and summary often say the same thing, so a claim counts once, and not if resolved).
 */
function projectEvent(base: Scope): number {
  const { reading, builder } = base;
  const id = reading.event.id;
  const people = reading.people.map((p) => {
    // "Priya" in a block that already named "Priya Sharma" is her (an alias with its source).
    const full = builder.fullName(p);
    const ref = builder.node('person', full ?? p, id);
    if (full && ref) builder.addAlias(ref, p, id);
    return ref;
  });
  const project = eventProject(reading, base.index);
  const projectRef = project && builder.node('project', project.name, id, project);
  const scope: Scope = { ...base, projectRef };
  if (projectRef && reading.event.scope === 'project') {
    for (const person of people)
      if (person) builder.edge(person, 'participates_in', projectRef, id);
  }
  const resolved = new Set<string>();
  const unresolved = new Set<string>();
  for (const finding of reading.findings) {
    switch (finding.kind) {
      case 'entity':
        builder.node(finding.type, finding.name, id);
        break;
      case 'link': {
        const target = builder.node(LINK_TARGET[finding.relation], finding.name, id);
        const from =
          finding.relation === 'uses'
            ? projectSubject(finding.subject, scope)
            : personSubject(finding.subject, scope);
        const claim = `${finding.relation}\u0000${finding.name}`;
        if (target && from) {
          builder.edge(from, finding.relation, target, id);
          resolved.add(claim);
        } else unresolved.add(claim);
        break;
      }
      case 'state': {
        const ref = stateSubject(finding.subject, scope);
        const claim = `state\u0000${finding.value}`;
        if (ref) {
          builder.fact(ref, 'state', finding.value, id);
          resolved.add(claim);
        } else unresolved.add(claim);
        break;
      }
      default: {
        const unknown: never = finding;
        throw new Error(`unknown finding ${JSON.stringify(unknown)}`);
      }
    }
  }
  for (const claim of reading.claims) {
    applyClaim(claim, { builder, eventId: id, sourceTime: reading.event.sourceTime, projectRef });
  }
  return [...unresolved].filter((claim) => !resolved.has(claim)).length;
}
