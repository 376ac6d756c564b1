import { isId, newId } from './ids';

describe('public ids', () => {
  it('issues ids with the spec prefix and a 26-character TypeID body', () => {
    const id = newId('customer');
    expect(id).toMatch(/^cst_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(isId('customer', id)).toBe(true);
  });

  it('accepts a UUID body, as the spec allows', () => {
    expect(isId('wallet', 'wlt_0190b6f2-7d3c-7f00-8a3e-4b1d2c3e4f50')).toBe(true);
  });

  it.each([
    ['another kind', newId('wallet')],
    ['uppercase', 'CST_01h455vb4pex5vsknk084sn02q'],
    ['excluded letters', 'cst_01h455vb4pex5vsknk084sn0iu'],
    ['a body that overflows 128 bits', 'cst_81h455vb4pex5vsknk084sn02q'],
    ['a short body', 'cst_01h455vb4pex5vsk'],
    ['no prefix', '01h455vb4pex5vsknk084sn02q'],
    ['not a string', 42],
  ])('rejects %s', (_label, value) => {
    expect(isId('customer', value)).toBe(false);
  });
});
