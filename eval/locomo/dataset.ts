/**
 * LoCoMo samples as the eval reads them: sessions in order, turns with their dia ids and the
 * content that is ingested, and gold evidence normalised per ../shared/data/locomo/README.md.
 * The annotation fields (`event_summary`, `observation`, `session_summary`) and the qa are never
 * part of a `LocomoTurn`: only `speaker`, `text` and `blip_caption` reach the content.
 */
import { MONTH_NAMES } from '@stratagate/domain';

export interface LocomoRawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
  [field: string]: unknown;
}

export interface LocomoQa {
  question: string;
  answer?: unknown;
  adversarial_answer?: unknown;
  evidence: string[];
  category: number;
}

export interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: LocomoQa[];
  [field: string]: unknown;
}

export interface LocomoTurn {
  diaId: string;
  session: number;
  /** 1-based position in the session = the thread turn it becomes. */
  index: number;
  speaker: string;
  /** `text`, plus ` [shares a photo: <caption>]` when the turn has a `blip_caption`. */
  content: string;
  occurredAt: string;
}

export interface LocomoSession {
  session: number;
  threadId: string;
  startsAt: string;
  turns: LocomoTurn[];
}

const SESSION_DATE = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i;

/** "1:56 pm on 8 May, 2023" → Date (UTC). Throws on anything else. */
export function parseSessionDate(text: string): Date {
  const m = SESSION_DATE.exec(text.trim());
  if (!m) throw new Error(`unparsable LoCoMo session date: ${JSON.stringify(text)}`);
  const [, h, min, ampm, d, monthName, y] = m;
  const hour12 = Number(h);
  const minute = Number(min);
  const day = Number(d);
  const year = Number(y);
  const month = (MONTH_NAMES as readonly string[]).indexOf(monthName!.toLowerCase());
  if (month < 0 || hour12 < 1 || hour12 > 12 || minute > 59 || day < 1) {
    throw new Error(`unparsable LoCoMo session date: ${JSON.stringify(text)}`);
  }
  const hour = (hour12 % 12) + (ampm!.toLowerCase() === 'pm' ? 12 : 0);
  const date = new Date(Date.UTC(year, month, day, hour, minute));
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) {
    throw new Error(`unparsable LoCoMo session date (no such day): ${JSON.stringify(text)}`);
  }
  return date;
}

export function turnContent(turn: LocomoRawTurn): string {
  const caption = typeof turn.blip_caption === 'string' ? turn.blip_caption.trim() : '';
  return caption ? `${turn.text} [shares a photo: ${caption}]` : turn.text;
}

/**
 * The `session_<N>` keys that hold lists, in numeric order (orphan `session_<N>_date_time` keys
 * without turns are ignored). Turn i (0-based) of a session occurs i minutes after its start.
 */
export function sessionsOf(sample: LocomoSample): LocomoSession[] {
  const sessions: LocomoSession[] = [];
  for (const [key, value] of Object.entries(sample.conversation)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(value)) continue;
    const n = Number(m[1]);
    const dateText = sample.conversation[`session_${n}_date_time`];
    if (typeof dateText !== 'string') {
      throw new Error(`${sample.sample_id}: session_${n} has no session_${n}_date_time`);
    }
    const start = parseSessionDate(dateText);
    const turns = (value as LocomoRawTurn[]).map((t, i) => {
      if (typeof t.speaker !== 'string' || typeof t.text !== 'string' || !t.dia_id) {
        throw new Error(`${sample.sample_id}: malformed turn ${i} in session_${n}`);
      }
      return {
        diaId: t.dia_id,
        session: n,
        index: i + 1,
        speaker: t.speaker,
        content: turnContent(t),
        occurredAt: new Date(start.getTime() + i * 60_000).toISOString(),
      };
    });
    sessions.push({ session: n, threadId: `session-${n}`, startsAt: start.toISOString(), turns });
  }
  return sessions.sort((a, b) => a.session - b.session);
}

export interface NormalisedEvidence {
  /** Valid, existing dia ids, de-duplicated, in first-seen order. */
  ids: string[];
  /** Tokens that were dropped (malformed such as a bare "D", or not a turn of the sample). */
  dropped: string[];
}

/**
 * Evidence quirks: several ids in one string ("D8:6; D9:17", space-separated), "D:11:26" →
 * D11:26, leading zeros ("D30:05" → D30:5); a bare "D" and ids of no turn are dropped.
 */
export function normaliseEvidence(
  evidence: readonly unknown[],
  known: ReadonlySet<string>,
): NormalisedEvidence {
  const ids: string[] = [];
  const dropped: string[] = [];
  for (const entry of evidence) {
    for (const token of String(entry).split(/[;,\s]+/)) {
      if (token === '') continue;
      const m = /^D:?(\d+):(\d+)$/i.exec(token);
      const id = m ? `D${Number(m[1])}:${Number(m[2])}` : null;
      if (id === null || !known.has(id)) dropped.push(token);
      else if (!ids.includes(id)) ids.push(id);
    }
  }
  return { ids, dropped };
}
