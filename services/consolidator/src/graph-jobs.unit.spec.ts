import { describe, expect, it } from 'vitest';
import { inSpokenOrder, statusAsOfBlock } from './graph-jobs.ts';

const event = (event_id: string, title: string, source_message_ids: string[]) => ({
  event_id,
  title,
  summary: `${title}.`,
  source_message_ids,
});

describe('inSpokenOrder', () => {
  const said = ['msg_z', 'msg_a', 'msg_m'];

  it('orders a batch by its first cited message, not by its random ids', () => {
    const events = [
      event('evt_1', 'Lena leads the billing project', ['msg_m']),
      event('evt_2', 'The billing launch is scheduled', ['msg_a', 'msg_m']),
      event('evt_3', 'We use Airflow', ['msg_z']),
    ];
    expect(inSpokenOrder(events, said).map((e) => e.event_id)).toEqual(['evt_3', 'evt_2', 'evt_1']);
    expect(inSpokenOrder([...events].reverse(), said)).toEqual(inSpokenOrder(events, said));
  });

  it('orders events of one message by text, and events citing no known message last', () => {
    const events = [
      event('evt_9', 'Nothing cited', []),
      event('evt_1', 'b', ['msg_a']),
      event('evt_2', 'a', ['msg_a']),
      event('evt_3', 'Unknown message', ['msg_x']),
    ];
    expect(inSpokenOrder(events, said).map((e) => e.title)).toEqual([
      'a',
      'b',
      'Nothing cited',
      'Unknown message',
    ]);
  });
});

describe('statusAsOfBlock', () => {
  it('counts a source superseded by a later block as active for this block', () => {
    expect(statusAsOfBlock('superseded', 5, 4)).toBe('active');
  });

  it('keeps a supersede by this block or an earlier one', () => {
    expect(statusAsOfBlock('superseded', 4, 4)).toBe('superseded');
    expect(statusAsOfBlock('superseded', 2, 4)).toBe('superseded');
    // Superseding event no longer there (never the case for extracted events): as recorded.
    expect(statusAsOfBlock('superseded', null, 4)).toBe('superseded');
  });

  it('never revives what was forgotten or archived', () => {
    expect(statusAsOfBlock('forgotten', 9, 4)).toBe('forgotten');
    expect(statusAsOfBlock('archived', 9, 4)).toBe('archived');
    expect(statusAsOfBlock('active', null, 4)).toBe('active');
  });
});
