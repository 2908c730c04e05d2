import type { EventReading, ProjectIndex } from './event-reading.ts';
import type { Subject } from './findings.ts';
import { endsWithName, isKnownTool } from './names.ts';
import type { ProposalBuilder } from './proposal-builder.ts';

/**
 * Ties a finding's subject to a node. Each resolver accepts only the node types its relation
 * takes (a project uses a tool; a person works at an organization) and returns nothing rather
 * than guess: an unresolved subject drops the edge or fact, never the batch.
 */
export interface Scope {
  reading: EventReading;
  index: ProjectIndex;
  builder: ProposalBuilder;
  /** The ref of the event's own project, if it has one. */
  projectRef: string | undefined;
}

const eventId = (scope: Scope) => scope.reading.event.id;

function onlyPerson(scope: Scope): string | undefined {
  const [person, ...rest] = scope.reading.people;
  return person && rest.length === 0
    ? scope.builder.node('person', person, eventId(scope))
    : undefined;
}

/** "we switched to pnpm" needs the project named in the event's title, text or tags. */
export function projectSubject(subject: Subject, scope: Scope): string | undefined {
  switch (subject.kind) {
    case 'group':
      return scope.projectRef;
    case 'project':
      return scope.builder.node('project', subject.name, eventId(scope));
    case 'tail': {
      const text = subject.text.trimEnd();
      const name = [...scope.index.known.values()]
        .filter((n) => endsWithName(text, n))
        .sort((a, b) => b.length - a.length)[0];
      return name
        ? scope.builder.node('project', text.slice(-name.length), eventId(scope))
        : undefined;
    }
    case 'self':
    case 'none':
      return undefined;
    default: {
      const unknown: never = subject;
      throw new Error(`unknown subject ${JSON.stringify(unknown)}`);
    }
  }
}

/** "Dana works at Acme", "我在B公司工作" (the event's only named participant). */
export function personSubject(subject: Subject, scope: Scope): string | undefined {
  switch (subject.kind) {
    case 'self':
      return onlyPerson(scope);
    case 'tail': {
      const text = subject.text.trimEnd();
      const person = scope.reading.people.find((p) => endsWithName(text, p));
      if (person) return scope.builder.node('person', person, eventId(scope));
      const known = scope.builder.nameAtEnd(text, false) ?? scope.builder.nameAtEnd(text, true);
      return known?.type === 'person'
        ? scope.builder.node('person', known.name, eventId(scope))
        : undefined;
    }
    case 'group':
    case 'project':
    case 'none':
      return undefined;
    default: {
      const unknown: never = subject;
      throw new Error(`unknown subject ${JSON.stringify(unknown)}`);
    }
  }
}

const LAST_TOKEN = /([A-Za-z][A-Za-z0-9.+#-]*)$/u;

/** "CI still has to be verified": a node named right before the state, or a known tool. */
export function stateSubject(subject: Subject, scope: Scope): string | undefined {
  switch (subject.kind) {
    case 'group':
      return scope.projectRef;
    case 'project':
      return scope.builder.node('project', subject.name, eventId(scope));
    case 'self':
      return onlyPerson(scope);
    case 'tail': {
      const text = subject.text.trimEnd();
      // The batch's own names first, then a known tool, then the context: a context node of
      // another type that happens to share a tool's name must not take its state.
      const proposed = scope.builder.nameAtEnd(text, false);
      if (proposed) return scope.builder.node(proposed.type, proposed.name, eventId(scope));
      const token = LAST_TOKEN.exec(text)?.[1];
      if (token && isKnownTool(token)) return scope.builder.node('tool', token, eventId(scope));
      const known = scope.builder.nameAtEnd(text, true);
      return known && scope.builder.node(known.type, known.name, eventId(scope));
    }
    case 'none':
      return undefined;
    default: {
      const unknown: never = subject;
      throw new Error(`unknown subject ${JSON.stringify(unknown)}`);
    }
  }
}
