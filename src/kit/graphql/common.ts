import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLOutputType } from 'graphql';

/** Shared GraphQL types: FieldError and the lifecycle states of course templates and events. */
export const FieldErrorObject = new GraphQLObjectType({
  name: 'FieldError',
  description: 'Why a write was rejected: the input field (`label`), the value given, and a message. A payload with errors wrote nothing.',
  fields: {
    label: { type: new GraphQLNonNull(GraphQLString) },
    value: { type: GraphQLString },
    message: { type: new GraphQLNonNull(GraphQLString) },
  },
});

export const fieldErrors = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(FieldErrorObject))),
  description: 'Empty on success.',
};

/** A mutation's payload, as every mutation has it: the record under `field` (null when refused) and `errors`. */
export function payloadType(name: string, field: string, type: () => GraphQLOutputType): GraphQLObjectType {
  return new GraphQLObjectType({ name, fields: () => ({ [field]: { type: type() }, errors: fieldErrors }) });
}

export const LifecycleStateEnum = new GraphQLEnumType({
  name: 'LifecycleState',
  values: Object.fromEntries(LIFECYCLE_STATES.map((v) => [v, { value: v }])),
});
