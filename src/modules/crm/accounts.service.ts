import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import {
  accountReferences,
  accountRowsByIds,
  addressesOfAccounts,
  deleteAccount,
  insertAccount,
  lockAccounts,
  moveAccountAddress,
  moveAccountReferences,
  putAccountAddress,
  updateAccount,
  type AccountRow,
} from './accounts.data.js';
import { accountChange, DEFAULT_ADDRESS_COLUMNS, mergeProblems, type AccountInput } from './accounts.rules.js';

export type { AccountRow } from './accounts.data.js';

type Answer = { account: AccountRow | null; problems: Problem[] };

/** Creates an account with its addresses, or answers why not (writing nothing). */
export async function createAccount(db: Db, input: AccountInput): Promise<Answer> {
  const { problems, columns, addresses } = accountChange(input, true);
  if (problems.length || columns.name === undefined) return { account: null, problems };
  const { id } = await insertAccount(db, { ...columns, name: columns.name });
  for (const a of addresses) await putAccountAddress(db, id, a.usage, a.address);
  return { account: (await accountRowsByIds(db, [id]))[0]!, problems: [] };
}

/**
 * Changes the fields given of an account, and sets the postal addresses given (each usage's
 * replaced whole, the others kept), or answers why not (writing nothing). A problem about the
 * account itself names `accountId`.
 */
export async function changeAccount(db: Db, id: number, input: AccountInput): Promise<Answer> {
  if (!(await lockAccounts(db, [id])).length) return { account: null, problems: [problem('accountId', id, 'Account not found')] };
  const { problems, columns, addresses } = accountChange(input, false);
  if (problems.length) return { account: null, problems };
  await updateAccount(db, id, columns);
  for (const a of addresses) await putAccountAddress(db, id, a.usage, a.address);
  return { account: (await accountRowsByIds(db, [id]))[0]!, problems: [] };
}

/**
 * Merges account `fromId` into account `toId`, in the caller's transaction, or answers why not
 * (writing nothing): every record that names `fromId` (each column whose foreign key references
 * companies, found in the catalogue, and the `account_id` of contacts and events) names `toId`
 * instead; `toId` keeps its own values and addresses, and takes from `fromId` what it lacks (an
 * address of a usage it has none of, an e-mail address, telephone or website); then `fromId` is
 * deleted. A column whose unique key would then hold the same row twice refuses the merge whole.
 */
export async function mergeAccounts(db: Db, fromId: number, toId: number): Promise<Answer> {
  const refused = mergeProblems(fromId, toId);
  if (refused.length) return { account: null, problems: refused };
  const locked = await lockAccounts(db, [fromId, toId]);
  const from = locked.find((a) => a.id === fromId);
  const to = locked.find((a) => a.id === toId);
  const missing = [
    ...(from ? [] : [problem('fromAccount', fromId, 'Account not found')]),
    ...(to ? [] : [problem('toAccount', toId, 'Account not found')]),
  ];
  if (!from || !to) return { account: null, problems: missing };
  try {
    // A savepoint: a reference the merge cannot move (a unique key) leaves nothing half-moved.
    await db.transaction(async (trx) => {
      const gaps: Partial<AccountRow> = {};
      if (DEFAULT_ADDRESS_COLUMNS.every((c) => to[c] === null) && DEFAULT_ADDRESS_COLUMNS.some((c) => from[c] !== null)) {
        for (const c of DEFAULT_ADDRESS_COLUMNS) Object.assign(gaps, { [c]: from[c] });
      }
      for (const c of ['email', 'tel', 'website'] as const) if (!to[c] && from[c]) gaps[c] = from[c];
      await updateAccount(trx, toId, gaps);
      const addresses = await addressesOfAccounts(trx, [fromId, toId]);
      for (const usage of ['billing', 'shipping'] as const) {
        const mine = addresses.some((a) => a.company_id === fromId && a.usage === usage);
        if (!mine) continue;
        if (addresses.some((a) => a.company_id === toId && a.usage === usage)) await putAccountAddress(trx, fromId, usage, null);
        else await moveAccountAddress(trx, usage, fromId, toId);
      }
      await moveAccountReferences(trx, await accountReferences(trx), fromId, toId);
      await deleteAccount(trx, fromId);
    });
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    const detail = (err as { table?: string }).table;
    return {
      account: null,
      problems: [
        problem(
          'fromAccount',
          fromId,
          `The accounts cannot be merged: ${detail ? `${detail} holds` : 'a record holds'} a row for each of them where only one may be`,
        ),
      ],
    };
  }
  return { account: (await accountRowsByIds(db, [toId]))[0]!, problems: [] };
}
