/**
 * node-postgres's own conversion of a value to the text it sends as a parameter, and its quoting
 * of a literal: exported by the package (`pg/lib/*`) without types. Used by transaction.ts to
 * write a statement's values as node-postgres would send them.
 */
declare module 'pg/lib/utils.js' {
  const utils: {
    prepareValue(value: unknown): string | Buffer | null;
    escapeLiteral(value: string): string;
  };
  export default utils;
}
