import type { GraphContextNode, GraphSourceEvent } from '../../graph.schema.ts';
import { splitSentences } from '../sentences.ts';
import { ENGLISH_STOP_WORDS } from '../stop-words.ts';
import { chineseFindings } from './chinese-findings.ts';
import { englishFindings } from './english-findings.ts';
import type { Finding } from './findings.ts';
import { isKnownTool, isNamedPerson, normaliseName, projectKey } from './names.ts';
import { stateFindings } from './state-cues.ts';
import { eventClaims } from '../nlp/event-claims.ts';
import type { Claim } from '../nlp/claims.ts';

/** One event as the proposer reads it: its findings in text order and its named people. */
export interface EventReading {
  event: GraphSourceEvent;
  findings: Finding[];
  people: string[];
  /** What the event states about people and things (diet, role, owner, a plan's date…). */
  claims: Claim[];
}

const QUESTION = /[?？]["'”’)）]*$/u;
/** Clauses keep a cue and its subject together while separating list items and asides. */
const CLAUSE_BREAK = /[;；,，:：]|\s[–—-]\s/u;

function clausesOf(event: GraphSourceEvent): string[] {
  const out: string[] = [];
  for (const text of [event.title, event.summary]) {
    for (const sentence of splitSentences(text)) {
      // A question asserts nothing, not even that its names exist.
      if (QUESTION.test(sentence)) continue;
      out.push(
        ...sentence
          .split(CLAUSE_BREAK)
          .map((c) => c.trim())
          .filter((c) => c !== ''),
      );
    }
  }
  return out;
}

export function readEvent(event: GraphSourceEvent): EventReading {
  const people: string[] = [];
  for (const raw of event.participants) {
    const name = raw.trim();
    if (isNamedPerson(name) && !people.some((p) => normaliseName(p) === normaliseName(name))) {
      people.push(name);
    }
  }
  const findings = clausesOf(event).flatMap((c) => [
    ...englishFindings(c),
    ...chineseFindings(c),
    ...stateFindings(c),
  ]);
  return { event, findings, people, claims: eventClaims(event) };
}

const BARE_NAME = /^\p{Lu}[\p{L}\p{N}_.-]*$/u;

/**
 * "X uses npm" in a project-scoped event names project X: a single capitalised word that is
 * the whole subject of a usage cue, and not a participant, a known tool or a known non-project.
 */
function bareProject(reading: EventReading, finding: Finding, others: ReadonlySet<string>) {
  if (reading.event.scope !== 'project' || finding.kind !== 'link') return undefined;
  if (finding.relation !== 'uses' || finding.subject.kind !== 'tail') return undefined;
  const name = finding.subject.text;
  const key = normaliseName(name);
  if (!BARE_NAME.test(name) || ENGLISH_STOP_WORDS.has(name.toLowerCase()) || isKnownTool(name)) {
    return undefined;
  }
  if (others.has(key) || reading.people.some((p) => normaliseName(p) === key)) return undefined;
  return name;
}

const TAG_PROJECT = /^(?:project[\s:_/-]+|项目[\s:_/-]*)(.+)$/iu;

/** The project names an event states itself, most explicit first. */
function ownProjects(reading: EventReading, others: ReadonlySet<string>): ProjectName[] {
  const names: ProjectName[] = [];
  for (const f of reading.findings) {
    if (f.kind === 'entity' && f.type === 'project') names.push({ name: f.name, fromTag: false });
    if ((f.kind === 'link' || f.kind === 'state') && f.subject.kind === 'project') {
      names.push({ name: f.subject.name, fromTag: false });
    }
  }
  for (const f of reading.findings) {
    const bare = bareProject(reading, f, others);
    if (bare) names.push({ name: bare, fromTag: false });
  }
  for (const tag of reading.event.tags) {
    const name = TAG_PROJECT.exec(tag.trim())?.[1]?.trim();
    if (name) names.push({ name, fromTag: true });
  }
  return names;
}

export interface ProjectName {
  name: string;
  /** Copied from a tag ("x"); a spelling from text ("X") replaces it on the node. */
  fromTag: boolean;
}

export interface ProjectIndex {
  /** projectKey → a name the batch or the context uses for the project. */
  known: Map<string, string>;
  /** Names of context nodes of other types, which a bare subject must not be taken for. */
  others: Set<string>;
}

export function indexProjects(readings: EventReading[], context: GraphContextNode[]): ProjectIndex {
  const others = new Set<string>();
  const known = new Map<string, string>();
  for (const node of context) {
    for (const name of [node.name, ...node.aliases]) {
      if (node.type !== 'project') others.add(normaliseName(name));
      else if (!known.has(projectKey(name))) known.set(projectKey(name), name);
    }
  }
  for (const reading of readings) {
    for (const { name } of ownProjects(reading, others)) {
      if (!known.has(projectKey(name))) known.set(projectKey(name), name);
    }
  }
  return { known, others };
}

/**
 * The project an event is about: one it names, else one of its tags that the batch or the
 * context knows as a project ("x" when another event says "Project X"). Tags are text of the
 * event, so they can back the name; they never introduce a project on their own.
 */
export function eventProject(reading: EventReading, index: ProjectIndex): ProjectName | undefined {
  const own = ownProjects(reading, index.others)[0];
  if (own) return own;
  const tag = reading.event.tags.find((t) => t.trim() !== '' && index.known.has(projectKey(t)));
  return tag ? { name: tag.trim(), fromTag: true } : undefined;
}
