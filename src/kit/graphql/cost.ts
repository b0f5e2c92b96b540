import { Kind, TypeInfo, visit, visitWithTypeInfo, type ArgumentNode, type DocumentNode, type FieldNode, type GraphQLSchema } from 'graphql';
import { DEFAULT_PAGE, MAX_PAGE } from './lists.js';

/**
 * The document as the cost limit must see it. graphql-armor's cost rule multiplies a list by
 * its `first` only when that is written in the query as a number; a page size given by a
 * variable, or left out, would count once, so a query could pass the limit by moving its page
 * sizes into variables. Here every paged list's `first` is written in: its maximum when a
 * variable gives it (validation is done once per query text, whatever the variables), its
 * default when it is left out or null.
 */
export function withWorstCasePages(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        if (!typeInfo.getFieldDef()?.args.some((a) => a.name === 'first')) return undefined;
        const given = node.arguments?.find((a) => a.name.value === 'first');
        if (given?.value.kind === Kind.INT) return undefined;
        const pages = given?.value.kind === Kind.VARIABLE ? MAX_PAGE : DEFAULT_PAGE;
        const first: ArgumentNode = { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'first' }, value: { kind: Kind.INT, value: String(pages) } };
        return { ...node, arguments: [...(node.arguments ?? []).filter((a) => a !== given), first] };
      },
    }),
  );
}
