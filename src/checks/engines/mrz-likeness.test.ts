import { looksLikeMrz, mrzLikeness } from './mrz-likeness';

describe('mrzLikeness', () => {
  it('takes two lines of a TD3 and three of a TD1 as an MRZ', () => {
    expect(looksLikeMrz('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10')).toBe(true);
    expect(looksLikeMrz('I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<')).toBe(true);
  });

  it('does not take two lines of a TD1 (the third missing) for a whole zone', () => {
    expect(mrzLikeness('7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<')).toBeLessThan(0.6);
  });

  it('does not take print without fillers, or one line, for an MRZ', () => {
    expect(mrzLikeness('THE QUICK BROWN FOX JUMPS OVER\nTHE LAZY DOG AGAIN AND AGAIN AND')).toBe(0);
    expect(mrzLikeness('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<')).toBe(0);
  });
});
