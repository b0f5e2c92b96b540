import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery, wholeConnection } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import type { Problem } from '../../platform/problems.js';
import { accountRowsByIds, addressesOfAccounts, type CompanyAddressRow } from './accounts.data.js';
import { POSTAL_ADDRESS_USAGES, type AccountInput, type AddressInput, type PostalAddressUsage } from './accounts.rules.js';
import { changeAccount, createAccount, mergeAccounts, type AccountRow } from './accounts.service.js';
import { COUNTRIES, countryByCode, type Country } from './countries.js';
import { Company } from './crm.data.js';

/**
 * Accounts (customers and partners: the `companies` rows of REST v2 `crm/companies`) in GraphQL:
 * the `Account` node, `accounts(filters, first, offset)`, `account { create update merge }`, and
 * the `countries` whose ids postal addresses take. Reading needs COMPANY_VIEW, writing COMPANY_EDIT.
 */
const VIEW = 'COMPANY_VIEW';
const EDIT = 'COMPANY_EDIT';

/** This request's accounts by id (the list primes it with the rows of its page). */
const accounts = (ctx: GraphQLContext) => ctx.loader('Account.byId', (db) => byId((ids) => accountRowsByIds(db, ids)));

export const accountById = (ctx: GraphQLContext, id: number) => accounts(ctx).load(id);

const addressesOf = (ctx: GraphQLContext, id: number) =>
  ctx
    .loader('Account.addresses', (db) =>
      byOwner<CompanyAddressRow>(
        (ids) => addressesOfAccounts(db, ids),
        (a) => a.company_id,
      ),
    )
    .load(id);

/** `Country:<ISO alpha-2>` in base64, as currencies are `Currency:<ISO 4217>`. */
const countryId = (code: string) => Buffer.from(`Country:${code}`, 'utf8').toString('base64');

/** The ISO code a Country id names (undefined: it names none, such as the production service's `Country:193`). */
function countryCodeOf(id: string): string | undefined {
  if (!/^[A-Za-z0-9+/]{1,40}={0,2}$/.test(id)) return undefined;
  const m = /^Country:([A-Z]{2})$/.exec(Buffer.from(id, 'base64').toString('utf8'));
  return countryByCode(m?.[1])?.code;
}

export const CountryObject = new GraphQLObjectType<Country>({
  name: 'Country',
  description: 'A country of ISO 3166-1: id `Country:<alpha-2 code>` in base64 (`Q291bnRyeTpHQg==` is GB).',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (c) => countryId(c.code) },
    code: { type: new GraphQLNonNull(GraphQLString), description: 'ISO 3166-1 alpha-2: GB.' },
    name: { type: new GraphQLNonNull(GraphQLString), description: 'English name: United Kingdom.' },
  },
});

const countries = wholeConnection<Country>('Country', CountryObject);

/** `countries`: every ISO 3166-1 country, by English name: where clients find the `countryId` an address takes. */
export const countriesQuery: GraphQLFieldConfig<unknown, GraphQLContext> = {
  type: new GraphQLNonNull(countries.type),
  description:
    'Every country (ISO 3166-1), by English name: the ids postal addresses take as `countryId`. Reference data: any token reads it.',
  resolve: (_r, _a, ctx) => countries.page(ctx, COUNTRIES),
};

export const PostalAddressUsageEnum = new GraphQLEnumType({
  name: 'PostalAddressUsage',
  description: "`default`: the account's own address (REST `address_*` of the company); `billing` and `shipping`: one more each.",
  values: Object.fromEntries(POSTAL_ADDRESS_USAGES.map((u) => [u, { value: u }])),
});

/** One address, whatever its usage, in the stored form of the billing and shipping rows. */
type AddressSource = Omit<CompanyAddressRow, 'company_id' | 'usage'> & { usage: PostalAddressUsage };

const addressFields = () => ({
  lines: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'The street part, one line each.' },
  town: { type: GraphQLString },
  region: { type: GraphQLString, description: 'A county or state, as written.' },
  postcode: { type: GraphQLString },
  country: { type: CountryObject, resolve: (a: AddressSource) => countryByCode(a.country_id) ?? null },
  provinceCode: { type: GraphQLString, resolve: (a: AddressSource) => a.province_code },
  contactPerson: { type: GraphQLString, resolve: (a: AddressSource) => a.contact_person },
});

const AddressObject = new GraphQLObjectType<AddressSource, GraphQLContext>({
  name: 'Address',
  fields: addressFields,
});

const PostalAddressObject = new GraphQLObjectType<AddressSource, GraphQLContext>({
  name: 'PostalAddress',
  description: 'An address of an account and what it is for. Its parts are here and, as some clients read them, under `address`.',
  fields: () => ({
    usage: { type: new GraphQLNonNull(PostalAddressUsageEnum) },
    ...addressFields(),
    address: { type: new GraphQLNonNull(AddressObject), resolve: (a) => a },
  }),
});

/** The default address of an account: its own address columns, when any holds something. */
function defaultAddress(a: AccountRow): AddressSource | null {
  const source: AddressSource = {
    usage: 'default',
    lines: a.address_street ? a.address_street.split(/\r?\n/).filter((l) => l.trim() !== '') : [],
    town: a.address_town,
    region: a.address_region,
    postcode: a.address_postcode,
    country_id: a.address_country_id,
    province_code: a.address_province_code,
    contact_person: a.address_contact_person,
  };
  return source.lines.length ||
    [source.town, source.region, source.postcode, source.country_id, source.province_code, source.contact_person].some((v) => v)
    ? source
    : null;
}

export const AccountObject: GraphQLObjectType<AccountRow, GraphQLContext> = new GraphQLObjectType<AccountRow, GraphQLContext>({
  name: 'Account',
  description: 'A customer or partner organisation: a company of REST v2 `crm/companies` (`legacyId` is its id there).',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Account'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    code: { type: GraphQLString },
    isPartner: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (a) => a.is_partner },
    emailAddress: { type: GraphQLString, resolve: (a) => a.email },
    website: { type: GraphQLString },
    phoneNumber: { type: GraphQLString, resolve: (a) => a.tel },
    postalAddresses: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(PostalAddressObject))),
      description: 'Its default address (when it has one), then billing and shipping.',
      async resolve(a, _args, ctx): Promise<AddressSource[]> {
        const more = (await addressesOf(ctx, a.id)).map(({ company_id: _c, ...rest }) => rest);
        const own = defaultAddress(a);
        return [...(own ? [own] : []), ...more];
      },
    },
    createdAt: { type: new GraphQLNonNull(GraphQLString), resolve: (a) => a.created_on },
  }),
});

registerNode('Account', { permission: VIEW, load: (ctx, id) => accountById(ctx, id) });

/** A field answering the account with id `idOf(parent)`, refused without COMPANY_VIEW. */
export function accountField<P>(idOf: (parent: P) => number | null, description?: string): GraphQLFieldConfig<P, GraphQLContext> {
  return refField(AccountObject, VIEW, idOf, accountById, description);
}

export const accountsQuery = listQuery<AccountRow>({
  typeName: 'Account',
  table: Company.tableName,
  permission: VIEW,
  node: () => AccountObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Account', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    isPartner: { column: 'is_partner', kind: 'bool', description: '"true" or "false".' },
    emailAddress: {
      column: 'email',
      kind: 'text',
      expression: 'lower(t.email)',
      normalize: (v) => v.toLowerCase(),
      description: 'Compared without regard to case.',
    },
    website: { column: 'website', kind: 'text' },
    code: { column: 'code', kind: 'text', orderable: true },
    addressTown: { column: 'address_town', kind: 'text' },
    createdAt: { column: 'created_on', kind: 'datetime', orderable: true },
  },
  prime: (ctx, rows) => {
    const loader = accounts(ctx);
    for (const row of rows) loader.prime(row.id, row);
  },
});

const AddressInputObject = new GraphQLInputObjectType({
  name: 'AddressInput',
  description: 'Every part not given is none (the address is replaced whole). Empty texts are none.',
  fields: {
    lines: { type: new GraphQLList(GraphQLString), description: `The street part, one line each (blank lines dropped).` },
    town: { type: GraphQLString },
    region: { type: GraphQLString },
    postcode: { type: GraphQLString },
    countryId: { type: GraphQLID, description: 'A Country id (see `countries`): `Country:<ISO alpha-2>` in base64.' },
    provinceCode: { type: GraphQLString },
    contactPerson: { type: GraphQLString },
  },
});

const PostalAddressInputObject = new GraphQLInputObjectType({
  name: 'PostalAddressInput',
  fields: {
    usage: { type: new GraphQLNonNull(PostalAddressUsageEnum) },
    address: { type: AddressInputObject, description: "The address of this usage, replacing the account's; null removes it." },
  },
});

const accountInputFields = (create: boolean) => ({
  name: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString, ...(create ? {} : { description: 'Cannot be cleared.' }) },
  emailAddress: { type: GraphQLString },
  website: { type: GraphQLString },
  isPartner: { type: GraphQLBoolean },
  postalAddresses: {
    type: new GraphQLList(PostalAddressInputObject),
    description: 'Addresses by usage, each replacing that usage’s whole; usages not given are kept.',
  },
});

const AccountCreateInput = new GraphQLInputObjectType({ name: 'AccountCreateInput', fields: accountInputFields(true) });
const AccountUpdateInput = new GraphQLInputObjectType({
  name: 'AccountUpdateInput',
  description: 'Only the fields given change; null clears one.',
  fields: { accountId: { type: new GraphQLNonNull(GraphQLID) }, ...accountInputFields(false) },
});
const AccountMergeInput = new GraphQLInputObjectType({
  name: 'AccountMergeInput',
  fields: {
    fromAccount: { type: new GraphQLNonNull(GraphQLID), description: 'The account merged away: deleted once its records name toAccount.' },
    toAccount: { type: new GraphQLNonNull(GraphQLID), description: 'The account that stays.' },
  },
});
const AccountPayload = payloadType('AccountPayload', 'account', () => AccountObject);

type RawAddress = Omit<AddressInput, 'country'> & { countryId?: string | null };
type RawInput = Omit<AccountInput, 'postalAddresses'> & {
  accountId?: string;
  postalAddresses?: ({ usage: string; address?: RawAddress | null } | null)[] | null;
};
type Payload = { account: AccountRow | null; errors: FieldError[] };

/** The write as the rules take it: each country id decoded (the given text kept for the error). */
function domainInput(input: RawInput): AccountInput {
  const { accountId: _id, postalAddresses, ...rest } = input;
  return {
    ...rest,
    ...(postalAddresses === undefined
      ? {}
      : {
          postalAddresses: postalAddresses?.map((p) => {
            if (!p) return null;
            if (!p.address) return { usage: p.usage, address: p.address ?? null };
            const { countryId: given, ...parts } = p.address;
            return {
              usage: p.usage,
              address: { ...parts, country: given == null || given === '' ? null : { given, code: countryCodeOf(given) } },
            };
          }),
        }),
  };
}

/** Problems about the accounts named carry the ids the caller sent. */
const withGivenIds = (problems: Problem[], given: Record<string, string | undefined>) =>
  toFieldErrors(problems.map((p) => (given[p.field] !== undefined ? { ...p, value: given[p.field] } : p)));

/** After a write, this request reads accounts (and the contacts they hold) afresh. */
function forgetAccounts(ctx: GraphQLContext): void {
  for (const key of ['Account.byId', 'Account.addresses', 'Contact.byId']) ctx.forget(key);
}

export const AccountMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'AccountMutations',
  fields: {
    create: {
      type: AccountPayload,
      description: 'Creates an account (a company of REST v2 `crm/companies`) with its postal addresses.',
      args: { input: { type: new GraphQLNonNull(AccountCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { account, problems } = await createAccount(ctx.db, domainInput(input));
        return { account, errors: toFieldErrors(problems) };
      },
    },
    update: {
      type: AccountPayload,
      description: 'Changes the fields given of an account; `postalAddresses` replaces the addresses of the usages given.',
      args: { input: { type: new GraphQLNonNull(AccountUpdateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Account', input.accountId);
        if (id === undefined) return { account: null, errors: [fieldError('accountId', input.accountId, 'Account not found')] };
        const { account, problems } = await changeAccount(ctx.db, id, domainInput(input));
        if (account) forgetAccounts(ctx);
        return { account, errors: withGivenIds(problems, { accountId: input.accountId }) };
      },
    },
    merge: {
      type: AccountPayload,
      description:
        'Merges fromAccount into toAccount in one transaction: every record naming fromAccount (contacts, events, orders, invoices, registrations, users...) names toAccount instead, toAccount keeps its values and addresses and takes from fromAccount the addresses (by usage), e-mail address, telephone and website it lacks, and fromAccount is deleted. Answers toAccount.',
      args: { input: { type: new GraphQLNonNull(AccountMergeInput) } },
      async resolve(_root, { input }: { input: { fromAccount: string; toAccount: string } }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const from = legacyIdOf('Account', input.fromAccount);
        const to = legacyIdOf('Account', input.toAccount);
        const unknown = [
          ...(from === undefined ? [fieldError('fromAccount', input.fromAccount, 'Account not found')] : []),
          ...(to === undefined ? [fieldError('toAccount', input.toAccount, 'Account not found')] : []),
        ];
        if (from === undefined || to === undefined) return { account: null, errors: unknown };
        const { account, problems } = await mergeAccounts(ctx.db, from, to);
        if (account) forgetAccounts(ctx);
        return { account, errors: withGivenIds(problems, { fromAccount: input.fromAccount, toAccount: input.toAccount }) };
      },
    },
  },
});
