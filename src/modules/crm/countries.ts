/**
 * Countries: the 249 codes ISO 3166-1 assigns (alpha-2, upper case), the codes accounts' postal
 * addresses store (`companies.address_country_id`, `company_addresses.country_id`), each with its
 * English name from the runtime's ICU data (CLDR: "United Kingdom", "Côte d’Ivoire"). GraphQL
 * names a country `Country:<code>` in base64 (`Q291bnRyeTpHQg==` is GB), as it names currencies.
 * User-assigned codes (XK) are not in the list.
 */
const CODES = `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT
BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK
FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE
JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO
RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW
TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`.split(/\s+/);

export interface Country {
  /** ISO 3166-1 alpha-2, upper case: `GB`. */
  code: string;
  /** English name: `United Kingdom`. */
  name: string;
}

const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
const BY_CODE: ReadonlyMap<string, Country> = new Map(CODES.map((code) => [code, { code, name: names.of(code) ?? code }]));

/** Every country, by English name. */
export const COUNTRIES: readonly Country[] = [...BY_CODE.values()].sort((a, b) => a.name.localeCompare(b.name, 'en'));

/** The country with this ISO 3166-1 alpha-2 code (upper case only); undefined for any other text. */
export function countryByCode(code: string | null | undefined): Country | undefined {
  return code == null ? undefined : BY_CODE.get(code);
}
