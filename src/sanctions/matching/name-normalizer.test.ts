import { normalizeName } from './name-normalizer';
import { foldRomanisation, phoneticKey } from './phonetic-key';
import { jaroWinkler, withinOneEdit, editDistance } from './string-similarity';

describe('name normalisation', () => {
  it('folds case, removes diacritics and splits on punctuation', () => {
    expect(normalizeName('José  MARÍA Ñúñez-Ölçer, Jr.').tokens).toEqual(['jose', 'maria', 'nunez', 'olcer', 'jr']);
    expect(normalizeName("SULTAN HASHIM AHMAD AL-TA'I").tokens).toEqual(['sultan', 'hashim', 'ahmad', 'al', 'tai']);
    expect(normalizeName('ﬁrst Ｎａｍｅ').tokens).toEqual(['first', 'name']);
  });

  it('transliterates Cyrillic, Greek and Arabic and reports the script', () => {
    expect(normalizeName('Владимир Путин')).toEqual({ tokens: ['vladimir', 'putin'], scripts: ['cyrillic'] });
    expect(normalizeName('Γιώργος Παπαδόπουλος').tokens).toEqual(['giorgos', 'papadopoulos']);
    expect(normalizeName('محمد حسن').tokens).toEqual(['mhmd', 'hsn']);
    expect(normalizeName('عبود').tokens).toEqual(['abud']);
    expect(normalizeName('الزمر').tokens).toEqual(['al', 'zmr']);
  });

  it('gives one phonetic key to spellings of one name across romanisations', () => {
    expect(phoneticKey('mohammed')).toBe(phoneticKey('muhammad'));
    expect(phoneticKey('mohammed')).toBe(phoneticKey(normalizeName('محمد').tokens[0]));
    expect(phoneticKey('haniya')).toBe(phoneticKey('haniyya'));
    expect(foldRomanisation('dzhimmi')).toBe(foldRomanisation('jimmy'));
    expect(foldRomanisation('akhmad')).toBe('ahmad');
  });

  it('measures string similarity', () => {
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.961, 3);
    expect(editDistance('haniya', 'hanyia')).toBe(1);
    expect(withinOneEdit('haniya', 'hanyia')).toBe(true);
    expect(withinOneEdit('haniya', 'hamiay')).toBe(false);
  });
});
