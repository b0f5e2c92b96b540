import test, { type ExecutionContext } from 'ava';
import { GraphQLError, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../src/kit/graphql/context.js';
import { buildSchema } from '../../src/app/graphql-schema.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * A mutation never commits while its answer reports a failure: an error in the answer of a
 * mutation that ran (a field refused, a bug, a timeout), after its resolver wrote, rolls the
 * whole request back, and the answer says nothing was written. A mutation refused before it
 * writes nulls only its own payload, as before: what the others of the request wrote stands.
 */
let f: GraphQLFixture;

const refusal = () => new GraphQLError('You may not read this', { extensions: { code: 'FORBIDDEN' } });

/** What a mutation that wrote a template answers: its title, and fields that fail as a resolver may. */
const Written = new GraphQLObjectType<{ title: string }, GraphQLContext>({
  name: 'Written',
  fields: {
    title: { type: new GraphQLNonNull(GraphQLString) },
    refused: { type: GraphQLString, resolve: () => Promise.reject(refusal()) },
    missing: { type: new GraphQLNonNull(GraphQLString), resolve: () => null },
    slow: {
      type: GraphQLString,
      async resolve(_parent, _args, ctx) {
        await ctx.db.raw("select set_config('statement_timeout', '50', true)");
        await ctx.db.raw('select pg_sleep(2)');
        return 'never';
      },
    },
  },
});

const insert = (ctx: GraphQLContext, title: string) => ctx.db('course_templates').insert({ title });
/** A mutation as the groups run one: in its turn (GraphQLContext.inTurn). */
const mutation = (
  run: (ctx: GraphQLContext, title: string) => Promise<unknown>,
): GraphQLFieldConfig<unknown, GraphQLContext, { title: string }> => ({
  type: Written,
  args: { title: { type: new GraphQLNonNull(GraphQLString) } },
  resolve: (_root, { title }, ctx) => ctx.inTurn(async () => run(ctx, title)),
});

/** Lectern's schema plus mutations that write a template, then answer (or refuse) in ways that fail. */
function schemaWithAnswers(): GraphQLSchema {
  const real = buildSchema().toConfig();
  const root = real.mutation!.toConfig();
  return new GraphQLSchema({
    ...real,
    types: [],
    mutation: new GraphQLObjectType({
      ...root,
      fields: {
        ...root.fields,
        write: mutation(async (ctx, title) => {
          await insert(ctx, title);
          return { title };
        }),
        writeThenRefuse: mutation(async (ctx, title) => {
          await insert(ctx, title);
          throw refusal();
        }),
        refuse: mutation(() => Promise.reject(refusal())),
      },
    }),
  });
}

test.serial.before(async () => {
  f = await graphqlFixture('mae', { app: { graphqlSchema: schemaWithAnswers() } });
});
test.after.always(async () => f?.close());

const count = (title: string) =>
  withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db('course_templates').where({ title }).count('* as n').first())!.n));

type Answer = {
  status: number;
  text: string;
  json: { data?: unknown; errors?: { message: string; path?: string[]; extensions?: { code?: string } }[] };
};

/** Rolled back: data null, the errors that caused it, then one saying nothing was written. */
function rolledBack(t: ExecutionContext, res: Answer, causes: [string[] | undefined, string | undefined][]) {
  t.is(res.json.data, null, res.text.slice(0, 500));
  const errors = res.json.errors ?? [];
  t.deepEqual(
    errors.map((e) => [e.path, e.extensions?.code]),
    [...causes, [undefined, 'MUTATION_ROLLED_BACK']],
  );
  t.regex(errors.at(-1)!.message, /^Nothing was written/);
}

test.serial(
  'when a field of the answer of a mutation that wrote is refused, and the record it answers is nulled, then nothing is written and the answer says so',
  async (t) => {
    // Translations need COURSE_TEMPLATE_VIEW wherever a template is reached: the created template is null.
    const writer = await f.tokenFor(f.tenant, 'writer', ['COURSE_TEMPLATE_EDIT']);
    const res = await f.gql(
      writer,
      'mutation { courseTemplate { create(input: {title: "Written blind"}) { courseTemplate { id translations { id } } errors { message } } } }',
    );
    t.is(await count('Written blind'), 0, 'the template the client has no id of was written');
    t.is(res.status, 200);
    rolledBack(t, res, [[['courseTemplate', 'create', 'courseTemplate', 'translations'], 'FORBIDDEN']]);
  },
);

test.serial(
  'when a nullable field of the answer of a mutation that wrote is refused (the rest answered), then nothing is written and the answer says so',
  async (t) => {
    const res = await f.gql(f.admin, 'mutation { write(title: "Answered in part") { title refused } }');
    t.is(await count('Answered in part'), 0);
    t.is(res.status, 200);
    rolledBack(t, res, [[['write', 'refused'], 'FORBIDDEN']]);
  },
);

test.serial(
  'when a resolver of the answer of a mutation that wrote returns null for a non-null field, then nothing is written and the answer says so',
  async (t) => {
    const res = await f.gql(f.admin, 'mutation { write(title: "Answered with a bug") { title missing } }');
    t.is(await count('Answered with a bug'), 0);
    t.is(res.status, 200);
    rolledBack(t, res, [[['write', 'missing'], undefined]]);
  },
);

test.serial('when a mutation refuses after it wrote, then nothing is written and the answer says so', async (t) => {
  const res = await f.gql(f.admin, 'mutation { writeThenRefuse(title: "Refused after writing") { title } }');
  t.is(await count('Refused after writing'), 0);
  t.is(res.status, 200);
  rolledBack(t, res, [[['writeThenRefuse'], 'FORBIDDEN']]);
});

test.serial(
  'when a mutation is refused before it writes, beside one that wrote, then the one that wrote is kept and answered',
  async (t) => {
    const res = await f.gql(
      f.admin,
      'mutation { refuse(title: "Never written") { title } write(title: "Written beside a refusal") { title } }',
    );
    t.is(res.status, 200);
    t.deepEqual(res.json.data, { refuse: null, write: { title: 'Written beside a refusal' } });
    t.deepEqual(
      res.json.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code]),
      [[['refuse'], 'FORBIDDEN']],
    );
    t.is(await count('Written beside a refusal'), 1);
  },
);

test.serial('when a statement times out while the answer of a mutation that wrote is built, then nothing is written (503)', async (t) => {
  const res = await f.gql(f.admin, 'mutation { write(title: "Answered too slowly") { title slow } }');
  t.is(await count('Answered too slowly'), 0);
  t.is(res.status, 503);
  t.is(res.json.errors[0].extensions.code, 'QUERY_TIMEOUT');
});
