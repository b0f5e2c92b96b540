import test from 'ava';
import { restFixture, type RestFixture } from '../helpers/rest.js';
import { readStatements } from '../helpers/statements.js';

let f: RestFixture;

test.serial.before(async () => {
  f = await restFixture('rcat');
});

test.after.always(async () => {
  await f?.close();
});

/** The statements of a REST GET (repeated by readStatements, so reads only), and its answer. */
async function statementsOf(path: string): Promise<{ sql: string[]; json: unknown }> {
  const { sql, result } = await readStatements(f.ctx.rt.knex, async () => {
    const res = await f.api('GET', path);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.json;
  });
  return { sql, json: result };
}

test.serial(
  'when a category is read, then its sub-categories come in its own statement, in their order, as its other answers list them',
  async (t) => {
    const top = (await f.api('POST', 'event/categories', { name: 'Safety', priority: 1, introduction: 'All of it' })).json;
    const made = [];
    for (const [name, priority, introduction] of [
      ['Fire', 3, null],
      ['Water', 1, 'Wet'],
      ['Air', 3, 'Blows'],
      ['Earth', 2, null],
    ] as const)
      made.push((await f.api('POST', 'event/categories', { name, priority, introduction, parent_id: top.id })).json);
    const alone = (await f.api('POST', 'event/categories', { name: 'Alone', priority: 9 })).json;
    const expected = {
      id: top.id,
      name: 'Safety',
      introduction: 'All of it',
      sub_categories: [made[1], made[3], made[0], made[2]].map((c) => ({ id: c.id, name: c.name, introduction: c.introduction })),
    };

    const one = await statementsOf(`event/categories/${top.id}`);
    t.deepEqual(one.json, expected);
    t.is(JSON.stringify(Object.keys(one.json as object)), JSON.stringify(['id', 'name', 'introduction', 'sub_categories']));
    t.is(one.sql.filter((s) => /categories/.test(s)).length, 1, one.sql.join('\n'));
    t.deepEqual((await statementsOf(`event/categories/${alone.id}`)).json, {
      id: alone.id,
      name: 'Alone',
      introduction: null,
      sub_categories: [],
    });

    // The list reads them in its own statement too, and answers the same records.
    const page = await statementsOf('event/categories?_order=id');
    t.deepEqual(
      (page.json as { id: number }[]).find((c) => c.id === top.id),
      expected,
    );
    t.is(page.sql.filter((s) => /categories/.test(s)).length, 1, page.sql.join('\n'));

    // A delete answers the record as before (read the other way, without the embedded statement).
    const gone = await f.api('DELETE', `event/categories/${made[0].id}`);
    t.deepEqual(gone.json, { id: made[0].id, name: 'Fire', introduction: null, sub_categories: [] });
    t.deepEqual((await f.api('GET', `event/categories/${top.id}`)).json.sub_categories.length, 3);
  },
);
