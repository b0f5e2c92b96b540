import { hasControlCharacter, isSingleLine } from '../../platform/util/text.js';
import { lineProblems, problem, type Problem } from '../../platform/problems.js';
import { countryByCode } from './countries.js';

/**
 * What an account (a `companies` row: REST v2 `crm/companies`, GraphQL `Account`) may hold, for
 * both faces: its name, e-mail address, website and postal addresses. Pure: the GraphQL face
 * checks its input with {@link accountChange}, the REST face its record with
 * {@link companyRecordProblems}, and both refuse the same value for the same reason (each under its
 * own field name: `emailAddress` / `email`).
 */

export const ACCOUNT_NAME_MAX_LENGTH = 255;
export const POSTAL_ADDRESS_USAGES = ['default', 'billing', 'shipping'] as const;
export type PostalAddressUsage = (typeof POSTAL_ADDRESS_USAGES)[number];
/** Lines of one address (the street part): the default address keeps them in `address_street`, one a line. */
export const MAX_ADDRESS_LINES = 10;

/** A company's own columns that hold its default postal address (REST shows them as they are). */
export const DEFAULT_ADDRESS_COLUMNS = [
  'address_street',
  'address_town',
  'address_region',
  'address_postcode',
  'address_country_id',
  'address_province_code',
  'address_contact_person',
] as const;
const LINE_MAX = 200;

// One @, no whitespace, nothing a mail header would read as a second address or a display name.
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u;

/** The problem (none or one) of an e-mail address (no control character: a NUL the database refuses, a bell no mailer takes); none when it is absent or empty. */
export function emailProblems(field: string, value: string | null | undefined): Problem[] {
  if (value == null || value === '') return [];
  return value.length <= 255 && EMAIL.test(value) && !hasControlCharacter(value)
    ? []
    : [problem(field, value, `${field} must be an e-mail address such as name@example.com`)];
}

/** The problem (none or one) of a country code: an ISO 3166-1 alpha-2 code in capitals; none when absent or empty. */
export function countryCodeProblems(field: string, value: string | null | undefined): Problem[] {
  if (value == null || value === '' || countryByCode(value)) return [];
  return [problem(field, value, `${field} must be an ISO 3166-1 alpha-2 country code in capitals, such as GB`)];
}

/** The problems of an account's name: required, one line of 1 to 255 characters. */
export function accountNameProblems(field: string, value: string | null | undefined): Problem[] {
  if (value == null || value.trim() === '') return [problem(field, value ?? null, `${field} must not be empty`)];
  return lineProblems(field, value, ACCOUNT_NAME_MAX_LENGTH, true);
}

/** The problems of a street part written as text, one line per line (REST `address_street`). */
function streetProblems(field: string, value: string | null | undefined): Problem[] {
  if (value == null) return [];
  const lines = value.split(/\r?\n/);
  if (lines.length > MAX_ADDRESS_LINES) return [problem(field, value, `${field} must have at most ${MAX_ADDRESS_LINES} lines`)];
  return lines.some((l) => l.length > LINE_MAX)
    ? [problem(field, value, `${field} must have lines of at most ${LINE_MAX} characters`)]
    : [];
}

/** An address part as a write gives it: undefined or null = none. */
export interface AddressInput {
  lines?: readonly (string | null)[] | null;
  town?: string | null;
  region?: string | null;
  postcode?: string | null;
  /** The country the input names: `given` as sent (a Country id), `code` what it decodes to (undefined: nothing). */
  country?: { given: string; code: string | undefined } | null;
  provinceCode?: string | null;
  contactPerson?: string | null;
}

/** An address as it is stored: empty texts are null, blank lines are dropped. */
export interface AddressValues {
  lines: string[];
  town: string | null;
  region: string | null;
  postcode: string | null;
  /** ISO 3166-1 alpha-2. */
  country_id: string | null;
  province_code: string | null;
  contact_person: string | null;
}

export interface AccountInput {
  /** Required on create; cannot be cleared. */
  name?: string | null;
  emailAddress?: string | null;
  website?: string | null;
  isPartner?: boolean | null;
  /** The addresses to set, one per usage; `address: null` (or an address with nothing in it) removes that usage's. */
  postalAddresses?: readonly ({ usage: string; address?: AddressInput | null } | null)[] | null;
}

/** The `companies` columns a write sets (only those given). */
export interface AccountColumns {
  name?: string;
  email?: string | null;
  website?: string | null;
  is_partner?: boolean;
}

/** Text as stored: trimmed, and null when nothing is left (`region: ""` is no region). */
const text = (v: string | null | undefined): string | null => {
  const t = v?.trim();
  return t ? t : null;
};

/** The problems of an address part, and its stored values (null when it holds nothing: the usage has no address). */
function addressChange(at: string, a: AddressInput): { problems: Problem[]; values: AddressValues | null } {
  const problems: Problem[] = [];
  const lines = (a.lines ?? []).map((l) => text(l)).filter((l): l is string => l !== null);
  if (lines.length > MAX_ADDRESS_LINES)
    problems.push(problem(`${at}.lines`, a.lines, `${at}.lines must have at most ${MAX_ADDRESS_LINES} lines`));
  lines.forEach((l, i) => {
    if (l.length > LINE_MAX || !isSingleLine(l))
      problems.push(problem(`${at}.lines`, l, `${at}.lines[${i}] must be one line of at most ${LINE_MAX} characters`));
  });
  const single = (field: keyof AddressInput, max: number) => lineProblems(`${at}.${field}`, a[field] as string | null | undefined, max);
  problems.push(...single('town', 100), ...single('region', 100), ...single('postcode', 20));
  problems.push(...single('provinceCode', 20), ...single('contactPerson', ACCOUNT_NAME_MAX_LENGTH));
  const code = a.country ? a.country.code : null;
  if (a.country && !countryByCode(code))
    problems.push(
      problem(
        `${at}.countryId`,
        a.country.given,
        `${at}.countryId names no country: use the id of one listed by \`countries\` (Country:<ISO 3166-1 alpha-2> in base64, e.g. Q291bnRyeTpHQg== for GB)`,
      ),
    );
  const values: AddressValues = {
    lines,
    town: text(a.town),
    region: text(a.region),
    postcode: text(a.postcode),
    country_id: code ?? null,
    province_code: text(a.provinceCode),
    contact_person: text(a.contactPerson),
  };
  const empty = !values.lines.length && Object.entries(values).every(([k, v]) => k === 'lines' || v === null);
  return { problems, values: empty ? null : values };
}

/**
 * The problems of an account write and what it sets: the `companies` columns and the postal
 * addresses by usage (each replaced whole; the usages not given are kept). On create the name is
 * required; on update it cannot be cleared.
 */
export function accountChange(
  input: AccountInput,
  create: boolean,
): { problems: Problem[]; columns: AccountColumns; addresses: { usage: PostalAddressUsage; address: AddressValues | null }[] } {
  const problems: Problem[] = [];
  const columns: AccountColumns = {};
  if (create || input.name !== undefined) {
    const found = accountNameProblems('name', input.name);
    problems.push(...found);
    if (!found.length) columns.name = input.name!.trim();
  }
  if (input.emailAddress !== undefined) {
    const email = text(input.emailAddress);
    problems.push(...emailProblems('emailAddress', email));
    columns.email = email;
  }
  if (input.website !== undefined) {
    problems.push(...lineProblems('website', input.website, 255));
    columns.website = text(input.website);
  }
  if (input.isPartner !== undefined) {
    if (input.isPartner === null) problems.push(problem('isPartner', null, 'isPartner must be true or false'));
    else columns.is_partner = input.isPartner;
  }
  const addresses: { usage: PostalAddressUsage; address: AddressValues | null }[] = [];
  const seen = new Set<string>();
  (input.postalAddresses ?? []).forEach((item, i) => {
    const at = `postalAddresses[${i}]`;
    if (!item) return;
    if (!(POSTAL_ADDRESS_USAGES as readonly string[]).includes(item.usage)) {
      problems.push(problem(`${at}.usage`, item.usage, `${at}.usage must be one of ${POSTAL_ADDRESS_USAGES.join(', ')}`));
      return;
    }
    if (seen.has(item.usage)) {
      problems.push(problem(`${at}.usage`, item.usage, `${at}.usage: the ${item.usage} address is given twice`));
      return;
    }
    seen.add(item.usage);
    const change = item.address ? addressChange(`${at}.address`, item.address) : { problems: [], values: null };
    problems.push(...change.problems);
    addresses.push({ usage: item.usage as PostalAddressUsage, address: change.values });
  });
  return { problems, columns, addresses };
}

/** A company record as REST writes it (the values it would have once the write is applied). */
export interface CompanyRecord {
  name?: string | null | undefined;
  email?: string | null | undefined;
  website?: string | null | undefined;
  address_street?: string | null | undefined;
  address_town?: string | null | undefined;
  address_region?: string | null | undefined;
  address_postcode?: string | null | undefined;
  address_country_id?: string | null | undefined;
  address_province_code?: string | null | undefined;
  address_contact_person?: string | null | undefined;
}

/**
 * The problems of the fields a REST v2 write of a company (`crm/companies`) sets, by the same rules
 * as an account written through GraphQL: a name of one line, an e-mail address, a website of one
 * line, a known country, address parts of the same lengths. REST stores its values as given
 * (an empty text stays empty), so an empty e-mail address or country is no problem.
 */
export function companyRecordProblems(c: CompanyRecord): Problem[] {
  return [
    ...(Object.hasOwn(c, 'name') ? accountNameProblems('name', c.name) : []),
    ...emailProblems('email', c.email),
    ...lineProblems('website', c.website, 255),
    ...streetProblems('address_street', c.address_street),
    ...lineProblems('address_town', c.address_town, 100),
    ...lineProblems('address_region', c.address_region, 100),
    ...lineProblems('address_postcode', c.address_postcode, 20),
    ...countryCodeProblems('address_country_id', c.address_country_id),
    ...lineProblems('address_province_code', c.address_province_code, 20),
    ...lineProblems('address_contact_person', c.address_contact_person, ACCOUNT_NAME_MAX_LENGTH),
  ];
}

/** The problems of merging account `from` into account `to` (their ids), before either is read. */
export function mergeProblems(from: number, to: number): Problem[] {
  return from === to ? [problem('toAccount', to, 'An account cannot be merged into itself: fromAccount and toAccount are the same')] : [];
}
