/** A tenant (an "instance"): one training company, with its own schema. */
export interface Tenant {
  id: number;
  slug: string;
  name: string;
  schema: string;
}

export const PLATFORM_SCHEMA = 'platform';
