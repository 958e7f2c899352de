/**
 * ISO 3166-1 alpha-2 codes with the English names, official-list spellings and demonyms the
 * lists use for nationality ("Iranian", "Korea, North", "Democratic People's Republic of Korea").
 * Written out here because the lists give free text and we must not reach the network.
 */
const TABLE = `AD Andorra|Andorran;AE United Arab Emirates|UAE|Emirati;AF Afghanistan|Afghan;AG Antigua and Barbuda;AI Anguilla;AL Albania|Albanian;AM Armenia|Armenian;AO Angola|Angolan;AQ Antarctica;AR Argentina|Argentine|Argentinian;AS American Samoa;AT Austria|Austrian;AU Australia|Australian;AW Aruba;AX Aland Islands;AZ Azerbaijan|Azerbaijani;
BA Bosnia and Herzegovina|Bosnian;BB Barbados;BD Bangladesh|Bangladeshi;BE Belgium|Belgian;BF Burkina Faso;BG Bulgaria|Bulgarian;BH Bahrain|Bahraini;BI Burundi|Burundian;BJ Benin;BL Saint Barthelemy;BM Bermuda;BN Brunei|Brunei Darussalam;BO Bolivia|Bolivian;BQ Bonaire;BR Brazil|Brazilian;BS Bahamas|Bahamas, The;BT Bhutan;BV Bouvet Island;BW Botswana;BY Belarus|Belarusian|Belarussian;BZ Belize|Belizean;
CA Canada|Canadian;CC Cocos Islands;CD Democratic Republic of the Congo|Congo, Democratic Republic of the|DRC|Congo (Democratic Republic)|Democratic Republic of Congo|Congolese (DRC);CF Central African Republic|Centrafrican;CG Congo|Republic of the Congo|Congo, Republic of the;CH Switzerland|Swiss;CI Cote d'Ivoire|Cote d Ivoire|Ivory Coast|Ivorian;CK Cook Islands;CL Chile|Chilean;CM Cameroon|Cameroonian;CN China|Chinese|People's Republic of China;CO Colombia|Colombian;CR Costa Rica;CU Cuba|Cuban;CV Cabo Verde|Cape Verde;CW Curacao;CX Christmas Island;CY Cyprus|Cypriot;CZ Czech Republic|Czechia|Czech;
DE Germany|German;DJ Djibouti;DK Denmark|Danish;DM Dominica;DO Dominican Republic|Dominican;DZ Algeria|Algerian;EC Ecuador|Ecuadorian;EE Estonia|Estonian;EG Egypt|Egyptian;EH Western Sahara;ER Eritrea|Eritrean;ES Spain|Spanish;ET Ethiopia|Ethiopian;FI Finland|Finnish;FJ Fiji;FK Falkland Islands;FM Micronesia;FO Faroe Islands;FR France|French;
GA Gabon;GB United Kingdom|UK|British|Great Britain;GD Grenada;GE Georgia|Georgian;GF French Guiana;GG Guernsey;GH Ghana|Ghanaian;GI Gibraltar;GL Greenland;GM Gambia|The Gambia|Gambia, The|Gambian;GN Guinea|Guinean;GP Guadeloupe;GQ Equatorial Guinea;GR Greece|Greek;GS South Georgia;GT Guatemala|Guatemalan;GU Guam;GW Guinea-Bissau;GY Guyana;
HK Hong Kong;HM Heard Island;HN Honduras|Honduran;HR Croatia|Croatian;HT Haiti|Haitian;HU Hungary|Hungarian;ID Indonesia|Indonesian;IE Ireland|Irish;IL Israel|Israeli;IM Isle of Man;IN India|Indian;IO British Indian Ocean Territory;IQ Iraq|Iraqi;IR Iran|Iranian|Iran (Islamic Republic of)|Islamic Republic of Iran;IS Iceland;IT Italy|Italian;
JE Jersey;JM Jamaica|Jamaican;JO Jordan|Jordanian;JP Japan|Japanese;KE Kenya|Kenyan;KG Kyrgyzstan|Kyrgyz;KH Cambodia|Cambodian;KI Kiribati;KM Comoros|Comorian;KN Saint Kitts and Nevis;KP North Korea|Korea, North|Democratic People's Republic of Korea|DPRK|North Korean|Korea, Democratic People's Republic of;KR South Korea|Korea, South|Republic of Korea|South Korean;KW Kuwait|Kuwaiti;KY Cayman Islands;KZ Kazakhstan|Kazakh;
LA Laos|Lao People's Democratic Republic;LB Lebanon|Lebanese;LC Saint Lucia;LI Liechtenstein;LK Sri Lanka|Sri Lankan;LR Liberia|Liberian;LS Lesotho;LT Lithuania|Lithuanian;LU Luxembourg;LV Latvia|Latvian;LY Libya|Libyan|Libyan Arab Jamahiriya;
MA Morocco|Moroccan;MC Monaco;MD Moldova|Moldovan|Republic of Moldova;ME Montenegro;MF Saint Martin;MG Madagascar;MH Marshall Islands;MK North Macedonia|Macedonia|North Macedonia, The Republic of;ML Mali|Malian;MM Myanmar|Burma|Burmese;MN Mongolia|Mongolian;MO Macau|Macao;MP Northern Mariana Islands;MQ Martinique;MR Mauritania|Mauritanian;MS Montserrat;MT Malta|Maltese;MU Mauritius;MV Maldives;MW Malawi;MX Mexico|Mexican;MY Malaysia|Malaysian;MZ Mozambique;
NA Namibia;NC New Caledonia;NE Niger|Nigerien;NF Norfolk Island;NG Nigeria|Nigerian;NI Nicaragua|Nicaraguan;NL Netherlands|Dutch;NO Norway|Norwegian;NP Nepal|Nepalese;NR Nauru;NU Niue;NZ New Zealand;OM Oman|Omani;
PA Panama|Panamanian;PE Peru|Peruvian;PF French Polynesia;PG Papua New Guinea;PH Philippines|Filipino;PK Pakistan|Pakistani;PL Poland|Polish;PM Saint Pierre and Miquelon;PN Pitcairn;PR Puerto Rico;PS Palestine|Palestinian|West Bank|Gaza|Occupied Palestinian Territory;PT Portugal|Portuguese;PW Palau;PY Paraguay;QA Qatar|Qatari;
RE Reunion;RO Romania|Romanian;RS Serbia|Serbian;RU Russia|Russian|Russian Federation;RW Rwanda|Rwandan;SA Saudi Arabia|Saudi|Saudi Arabian;SB Solomon Islands;SC Seychelles;SD Sudan|Sudanese;SE Sweden|Swedish;SG Singapore|Singaporean;SH Saint Helena;SI Slovenia;SJ Svalbard;SK Slovakia;SL Sierra Leone;SM San Marino;SN Senegal|Senegalese;SO Somalia|Somali;SR Suriname;SS South Sudan|South Sudanese;ST Sao Tome and Principe;SV El Salvador;SX Sint Maarten;SY Syria|Syrian|Syrian Arab Republic;SZ Eswatini|Swaziland;
TC Turks and Caicos Islands;TD Chad|Chadian;TF French Southern Territories;TG Togo;TH Thailand|Thai;TJ Tajikistan|Tajik;TK Tokelau;TL Timor-Leste|East Timor;TM Turkmenistan|Turkmen;TN Tunisia|Tunisian;TO Tonga;TR Turkey|Turkiye|Turkish;TT Trinidad and Tobago;TV Tuvalu;TW Taiwan;TZ Tanzania|Tanzanian|United Republic of Tanzania;
UA Ukraine|Ukrainian;UG Uganda|Ugandan;UM United States Minor Outlying Islands;US United States|United States of America|USA|American;UY Uruguay;UZ Uzbekistan|Uzbek;VA Holy See|Vatican;VC Saint Vincent and the Grenadines;VE Venezuela|Venezuelan|Venezuela (Bolivarian Republic of);VG British Virgin Islands|Virgin Islands, British;VI US Virgin Islands;VN Vietnam|Viet Nam|Vietnamese;VU Vanuatu;WF Wallis and Futuna;WS Samoa;XK Kosovo|Kosovar;YE Yemen|Yemeni;YT Mayotte;ZA South Africa|South African;ZM Zambia|Zambian;ZW Zimbabwe|Zimbabwean`;

function key(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const BY_NAME = new Map<string, string>();
/** Every code we accept from API callers. */
export const ISO_ALPHA2 = new Set<string>();

for (const record of TABLE.split(';')) {
  const trimmed = record.trim();
  const code = trimmed.slice(0, 2);
  ISO_ALPHA2.add(code);
  for (const name of trimmed.slice(3).split('|')) BY_NAME.set(key(name), code);
}

export function isIsoAlpha2(code: string): boolean {
  return ISO_ALPHA2.has(code.toUpperCase());
}

/** Country name, demonym or alpha-2 code to an alpha-2 code; undefined when unknown. */
export function toIsoAlpha2(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed) && ISO_ALPHA2.has(trimmed.toUpperCase())) return trimmed.toUpperCase();
  const k = key(trimmed);
  return BY_NAME.get(k) ?? BY_NAME.get(k.replace(/^the /, ''));
}

/** Free text such as "a) Afghan b) Pakistani" or "(1) Iraq (2) Syria" to the codes it names. */
export function countriesInText(text: string | undefined | null): string[] {
  if (!text) return [];
  const parts = text
    .split(/\s*(?:[a-z]\)|\(\d+\)|;|,(?![^(]*\))|\/|\band\b)\s*/i)
    .map((p) => p.trim())
    .filter(Boolean);
  const out = new Set<string>();
  const whole = toIsoAlpha2(text);
  if (whole) out.add(whole);
  for (const p of parts) {
    const code = toIsoAlpha2(p);
    if (code) out.add(code);
  }
  return [...out];
}
