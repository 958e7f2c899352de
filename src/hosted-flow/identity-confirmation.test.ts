import { differencesFromMrz, validateIdentity } from './identity-confirmation';

const typed = (surname: string, date_of_birth = '1985-03-27') => ({ given_names: 'Anna', surname, date_of_birth });

describe('the confirmed identity', () => {
  it('matches the MRZ spelling of a name with accents, umlauts or a hyphen', () => {
    expect(differencesFromMrz(typed('Müller-Lüdenscheidt'), { surname: 'MUELLER LUEDENSCHEIDT', dateOfBirth: '1985-03-27' })).toEqual([]);
    expect(differencesFromMrz(typed('Müller'), { surname: 'MULLER', dateOfBirth: '1985-03-27' })).toEqual([]);
    expect(differencesFromMrz(typed("O'Brien"), { surname: 'O BRIEN', dateOfBirth: '1985-03-27' })).toEqual([]);
  });

  it('names the fields that differ from the MRZ', () => {
    expect(differencesFromMrz(typed('Schmidt', '1985-03-28'), { surname: 'MUSTER', dateOfBirth: '1985-03-27' })).toEqual(['surname', 'date_of_birth']);
  });

  it('refuses a date that does not exist', () => {
    expect(validateIdentity({ surname: 'Muster', date_of_birth: '2001-02-29' }, new Date()).errors[0]).toMatchObject({ field: 'date_of_birth', code: 'invalid_date' });
  });
});
