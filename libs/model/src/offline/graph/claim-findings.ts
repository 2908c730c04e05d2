import type { NodeType } from '../../graph.schema.ts';
import type { Claim } from '../nlp/claims.ts';
import { isNamedPerson } from './names.ts';
import type { ProposalBuilder } from './proposal-builder.ts';

/**
 * Claims (read from an event's title and summary by the same NLP step the extractor uses) as
 * graph facts and edges, each citing the event it came from (MM-GRF-2/4):
 *
 * | claim      | graph                                                         |
 * | ---------- | ------------------------------------------------------------- |
 * | diet       | person fact `diet`                                            |
 * | role       | person fact `role`                                            |
 * | state      | person fact `state` ("on vacation until December 8")          |
 * | location   | person –lives_in→ place                                       |
 * | employer   | person –works_at→ organization                                |
 * | member_of  | person –member_of→ organization (a team)                      |
 * | covers_for | person –covers_for→ person                                    |
 * | owner      | person –works_on→ project, and the project's fact `owner`     |
 * | date       | the plan's project fact (`deadline`, `launch`, …: the date)   |
 *
 * | tool       | named project –uses→ tool ("switched Atlas from npm to pnpm")  |
 *
 * Single-valued facts replace each other through the planner (MM-GRF-7: same key, new value);
 * a negated claim is no fact.
 */
export interface ClaimScope {
  builder: ProposalBuilder;
  eventId: string;
  /** The event's time (happenedStart ?? … ?? createdAt): a date claim's resolved day. */
  sourceTime: string;
  projectRef: string | undefined;
}

export function applyClaim(claim: Claim, scope: ClaimScope): boolean {
  if (claim.negated) return false;
  const { builder, eventId } = scope;
  const person = (name: string) => personRef(name, scope);
  const to = (type: NodeType, name: string) => builder.node(type, name, eventId);
  const fact = (ref: string | undefined, key: string, value: string) => {
    if (!ref) return false;
    builder.fact(ref, key, value, eventId);
    return true;
  };
  const edge = (from: string | undefined, relation: string, target: string | undefined) => {
    if (!from || !target) return false;
    builder.edge(from, relation, target, eventId);
    return true;
  };
  switch (claim.attribute) {
    case 'diet':
    case 'role':
      return fact(person(claim.subject), claim.attribute, claim.value);
    case 'state':
      return fact(
        person(claim.subject),
        'state',
        claim.until ? `${claim.value} until ${claim.until}` : claim.value,
      );
    case 'location':
      return edge(person(claim.subject), 'lives_in', to('place', claim.value));
    case 'employer':
      return edge(person(claim.subject), 'works_at', to('organization', claim.value));
    case 'member_of':
      return edge(person(claim.subject), 'member_of', to('organization', claim.value));
    case 'covers_for':
      return edge(person(claim.subject), 'covers_for', person(claim.value));
    case 'owner': {
      const project = to('project', claim.subject);
      const owner = person(claim.value);
      const linked = edge(owner, 'works_on', project);
      return fact(project, 'owner', claim.value) || linked;
    }
    case 'date':
      return datedPlan(claim, scope);
    case 'tool': {
      // "We switched Atlas from npm to pnpm": a named project; other usage is read by the cue
      // readers (english-findings.ts), which know the event's project.
      const named = claim.subjectKind === 'thing' && /^\p{Lu}/u.test(claim.subject);
      return named && edge(to('project', claim.subject), 'uses', to('tool', claim.value));
    }
    case 'likes':
      return false;
    default: {
      const unknown: never = claim.attribute;
      throw new Error(`unknown claim attribute ${String(unknown)}`);
    }
  }
}

/** A person node for a name, reusing a full name the block already knows ("Priya" → "Priya Sharma"). */
function personRef(name: string, scope: ClaimScope): string | undefined {
  if (!isNamedPerson(name) || /'s\s/u.test(name)) return undefined;
  const full = scope.builder.fullName(name);
  if (!full) return scope.builder.node('person', name, scope.eventId);
  const ref = scope.builder.node('person', full, scope.eventId);
  if (ref) scope.builder.addAlias(ref, name, scope.eventId);
  return ref;
}

const PLAN_KEY =
  /\s*(deadline|launch|release|demo|review|due date|go-live|cutover|kickoff|offsite|rollout|freeze|截止日期|截止|上线|发布|评审|演示)$/iu;

/** "beta deadline" → project beta, fact deadline; "the launch" → the event's project. */
function datedPlan(claim: Claim, scope: ClaimScope): boolean {
  const text = claim.subject.replace(/的$/u, '');
  const m = PLAN_KEY.exec(text);
  const key = (m?.[1] ?? 'date').toLowerCase();
  const name = (m ? text.slice(0, m.index) : '').replace(/的$/u, '').trim();
  const ref = name !== '' ? scope.builder.node('project', name, scope.eventId) : scope.projectRef;
  if (!ref) return false;
  const day = /^\d{4}-\d{2}-\d{2}/u.exec(scope.sourceTime)?.[0];
  const value = day ? `${day} (${claim.value})` : claim.value;
  scope.builder.fact(ref, key, value, scope.eventId);
  return true;
}
