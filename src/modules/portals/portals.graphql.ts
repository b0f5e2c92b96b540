import { GraphQLBoolean, GraphQLEnumType, GraphQLID, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toGlobalId } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { settingsName } from '../../platform/tenancy/settings.data.js';
import { Portal as PortalModel, tenantPortalsByIds, type PortalRow } from './portals.data.js';

/**
 * Portals in Core GraphQL (real-clients.md section 5.D, the MCP's `list_portals`): the instance's
 * WebLink portals as `portals(first)` answers them, `{ id url vanityUrl availabilityState
 * isBookingPortal isSelfRegistrationPortal singleSignOnOnly autoProvisionLearnersViaSingleSignOn
 * brand { id name } }`, read with PORTAL_VIEW. What Lectern's portals are, said as those fields
 * say it: a portal is one published website address of the instance's WebLink catalogue
 * (portals.service.ts), live from when it is added until it is removed; a site that lists and
 * books the instance's events (a booking portal), with no self-registration of learners and no
 * single sign-on (Lectern has neither). An instance is one brand: the brand of each of its
 * portals is the instance (`Brand:1`, its name).
 */

const VIEW = 'PORTAL_VIEW';
/** The host names of the production service's own WebLink portals; any other host is a domain of the instance's own (a vanity address). */
const WEBLINK_HOSTS = /\.administrateweblink\.com$/;

/** The brand an instance's records are sold under: the instance itself, the only brand it has. */
export interface BrandSource {
  name: string;
}

/** The instance's one brand: id `Brand:1`, named as the instance names itself (its settings). */
export const BrandObject = new GraphQLObjectType<BrandSource, GraphQLContext>({
  name: 'Brand',
  description: 'The brand records are sold under. A Lectern instance is one brand: Brand:1, named as the instance.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: () => toGlobalId('Brand', INSTANCE_BRAND_ID) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: () => INSTANCE_BRAND_ID },
    name: { type: new GraphQLNonNull(GraphQLString) },
  },
});

/** The legacy id of an instance's one brand. */
export const INSTANCE_BRAND_ID = 1;

/** This request's instance brand (its name read once per request). */
export const instanceBrand = (ctx: GraphQLContext): Promise<BrandSource> =>
  ctx.loader('Brand.instance', (db) => {
    let brand: Promise<BrandSource> | undefined;
    return () => (brand ??= settingsName(db).then((s) => ({ name: s?.name ?? ctx.tenant.name })));
  })();

const PortalAvailabilityStateEnum = new GraphQLEnumType({
  name: 'PortalAvailabilityState',
  description: 'available: the portal answers its website (a Lectern portal is, from when it is added until it is removed).',
  values: { available: { value: 'available' }, unavailable: { value: 'unavailable' } },
});

const url = (p: PortalRow) => `https://${p.domain}`;

export const PortalObject = new GraphQLObjectType<PortalRow, GraphQLContext>({
  name: 'Portal',
  description: "A WebLink portal: one published website address of the instance's catalogue. Id `Portal:<n>`.",
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Portal'),
    url: { type: new GraphQLNonNull(GraphQLString), description: 'Its address: https://<domain>.', resolve: url },
    domain: { type: new GraphQLNonNull(GraphQLString), description: 'Its host name, as websites send it (weblink-portal).' },
    vanityUrl: {
      type: GraphQLString,
      description: "Its address when the domain is the instance's own (not an administrateweblink.com address); null otherwise.",
      resolve: (p) => (WEBLINK_HOSTS.test(p.domain) ? null : url(p)),
    },
    availabilityState: { type: new GraphQLNonNull(PortalAvailabilityStateEnum), resolve: () => 'available' },
    isBookingPortal: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'true: a WebLink portal lists and books the instance’s events.',
      resolve: () => true,
    },
    isSelfRegistrationPortal: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'false: Lectern has no self-registration of learners.',
      resolve: () => false,
    },
    singleSignOnOnly: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'false: Lectern has no single sign-on.',
      resolve: () => false,
    },
    autoProvisionLearnersViaSingleSignOn: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'false: Lectern has no single sign-on.',
      resolve: () => false,
    },
    brand: {
      type: new GraphQLNonNull(BrandObject),
      description: 'The instance, its one brand.',
      resolve: (_p, _a, ctx) => instanceBrand(ctx),
    },
    createdAt: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => new Date(p.created_at).toISOString() },
  }),
});

const portalById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('Portal.byId', (db) => byId((ids) => tenantPortalsByIds(db, ctx.tenant.id, ids))).load(id);

registerNode('Portal', { permission: VIEW, load: (ctx, id) => portalById(ctx, id) });

/** `portals(first)`: the instance's portals by domain (another instance's are never listed). */
export const portalsQuery = listQuery<PortalRow>({
  typeName: 'Portal',
  table: PortalModel.tableName,
  permission: VIEW,
  node: () => PortalObject,
  defaultOrder: { field: 'domain', direction: 'asc' },
  description: "The instance's WebLink portals (its published website addresses), by domain. Needs PORTAL_VIEW.",
  scope: (q, ctx) => void q.where('t.tenant_id', ctx.tenant.id),
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Portal', orderable: true },
    domain: { column: 'domain', kind: 'text', orderable: true, normalize: (v) => v.toLowerCase() },
    url: { column: 'domain', kind: 'text', expression: `('https://' || t.domain)` },
  },
});
