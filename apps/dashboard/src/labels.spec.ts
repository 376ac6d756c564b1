// How the dashboard names the API's values (issue 47, item 1): readable words for statuses and kinds, short
// ids, and ages of held transactions.
import { age, label, shortId } from './labels';

describe('labels on the dashboard', () => {
  it('reads kinds, instrument types, rails and sub-statuses as words', () => {
    expect(label('cryptoToFiatAccount')).toBe('Crypto to bank account');
    expect(label('processing.payoutUnconfirmed')).toBe('Payout unconfirmed');
    expect(label('failed.outboundFailed')).toBe('Payout failed');
    expect(label('wire')).toBe('Wire');
    expect(label('awaitingAction')).toBe('Awaiting action');
  });

  it('writes a value it does not know as words, and a dash for none', () => {
    expect(label('completed')).toBe('Completed');
    expect(label('already_completed')).toBe('Already completed');
    expect(label('someNewStatus')).toBe('Some new status');
    expect(label(null)).toBe('—');
  });

  it('shortens a TypeID to its prefix and last four, and leaves anything else whole', () => {
    expect(shortId('cst_01h455vb4pex5vsknk084sn02q')).toBe('cst_…n02q');
    expect(shortId('txn_01h455vb4pex5vsknk084sn02q.2')).toBe('txn_…n02q.2');
    expect(shortId('0x52908400098527886E0F7030069857D2E4169EE7')).toBe('0x52908400098527886E0F7030069857D2E4169EE7');
    expect(shortId('sk_sdbx_abc')).toBe('sk_sdbx_abc');
  });

  it('says how long ago in the largest whole unit, never below zero', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(age('2026-01-01T23:59:30Z', now)).toBe('30 s');
    expect(age('2026-01-01T23:55:00Z', now)).toBe('5 min');
    expect(age('2026-01-01T21:00:00Z', now)).toBe('3 h');
    expect(age('2025-12-30T00:00:00Z', now)).toBe('3 d');
    expect(age('2026-01-02T00:10:00Z', now)).toBe('0 s');
  });
});
