import type { ComponentChildren, TargetedMouseEvent } from 'preact';
import { BASE, navigate } from './router.ts';
import { describe, isNotFound, type Loaded } from './api.ts';

/** A link inside the console: a real <a> (open in a new tab works), routed in place on a click. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  /** Marks the link to the page being shown. */
  current?: boolean;
}) {
  const onClick = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a
      href={BASE + props.href}
      onClick={onClick}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
    >
      {props.children}
    </a>
  );
}

export function NotFound(props: { what: string }) {
  return (
    <section class="notice" role="alert" aria-labelledby="not-found-title">
      <h2 id="not-found-title">Not found</h2>
      <p>{props.what} does not exist, or it belongs to another tenant than the one of your key.</p>
      <p>
        <Link href="/">Back to your spaces</Link>
      </p>
    </section>
  );
}

/** A message from a failed action, read out when it appears; nothing when there is none. */
export function Alert(props: { message: string | null | undefined; id?: string }) {
  if (!props.message) return null;
  return (
    <p id={props.id} class="error" role="alert">
      {props.message}
    </p>
  );
}

export function Failure(props: { error: unknown }) {
  return (
    <p class="error" role="alert">
      {describe(props.error)}
    </p>
  );
}

/** Renders what `loaded` holds: a spinner line first, an error, or `children(data)`. */
export function Show<T>(props: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  const { data, error } = props.loaded;
  if (error && isNotFound(error) && data === undefined) return <NotFound what={props.what} />;
  if (data === undefined) {
    return error ? <Failure error={error} /> : <p aria-live="polite">Loading {props.what}…</p>;
  }
  return (
    <>
      {error ? <Failure error={error} /> : null}
      {props.children(data)}
    </>
  );
}

/** A time as the user's locale shows it, the exact value in a tooltip and for machines. */
export function Time(props: { at: string | null | undefined }) {
  if (!props.at) return <span class="muted">—</span>;
  const date = new Date(props.at);
  const shown = Number.isNaN(date.getTime()) ? props.at : date.toLocaleString();
  return (
    <time dateTime={props.at} title={props.at}>
      {shown}
    </time>
  );
}

export const Badge = (props: { kind?: string; children: ComponentChildren }) => (
  <span class={`badge ${props.kind ?? ''}`}>{props.children}</span>
);

/**
 * A labelled control. Give `id` (and the same id to the control) for a select: a label wrapped
 * around a select would take the options' text into its accessible name.
 */
export function Field(props: {
  label: string;
  id?: string;
  wide?: boolean;
  children: ComponentChildren;
}) {
  const kind = props.wide ? 'field wide' : 'field';
  if (props.id) {
    return (
      <div class={kind}>
        <label for={props.id}>{props.label}</label>
        {props.children}
      </div>
    );
  }
  return (
    <label class={kind}>
      <span>{props.label}</span>
      {props.children}
    </label>
  );
}
