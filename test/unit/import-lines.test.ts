/** What the import reads off a line before parsing it (lib/import/lines.ts `sketchLine`). */
import { sketchLine } from '../../lib/import/lines';

describe('sketchLine', () => {
  it('guesses the company a line names, its number in canonical form', () => {
    expect(
      sketchLine('{"country": "be", "companyNumber": "0403.170.701", "name": "Acme Bouw NV"}').guess,
    ).toEqual({
      country: 'BE',
      companyNumber: '0403170701',
    });
  });

  it('guesses nothing when the line does not name a valid company plainly', () => {
    expect(sketchLine('{"name": "Nowhere"}').guess).toBeNull();
    expect(sketchLine('{"country": "XX", "companyNumber": "1"}').guess).toBeNull();
    expect(sketchLine('{"country": "BE", "companyNumber": "0403170702"}').guess).toBeNull();
    expect(sketchLine('{"country": "B\\u0045", "companyNumber": "0403170701"}').guess).toBeNull();
  });

  it('fingerprints the text byte for byte: any other text, another fingerprint', () => {
    const line = '{"country":"BE","companyNumber":"0403170701","name":"Acme Bouw NV"}';
    expect(sketchLine(line).lineHash).toBe(sketchLine(line).lineHash);
    expect(sketchLine(`${line} `).lineHash).not.toBe(sketchLine(line).lineHash);
    expect(sketchLine(line.replace('Acme', 'Acmé')).lineHash).not.toBe(sketchLine(line).lineHash);
  });
});
