/**
 * The public face of the portals module for other modules' GraphQL faces: the object types and
 * the instance's brand (what `brandId` inputs name). Root fields are wired by the app (`src/app/`).
 */
export { BrandObject, INSTANCE_BRAND_ID, instanceBrand, PortalObject, type BrandSource } from './portals.graphql.js';
