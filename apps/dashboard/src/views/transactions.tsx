// Transactions: the list with its filters (folded away on a phone), each row naming its customer and where
// the money went; a transaction's own page is transaction-detail.tsx.
import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigateWithFilters, routeQuery, useResource } from '../hooks';
import { CustomerRef, Ref } from '../ids';
import { Instrument } from '../instrument';
import { label } from '../labels';
import { Amount, Empty, Filters, Loaded, Pager, Status, Time } from '../ui';

type Transaction = Schemas['TransactionResponse'];
const STATUSES = ['processing', 'awaitingAction', 'completed', 'failed'] as const;

export function TransactionsList() {
  const query = routeQuery();
  const [status, setStatus] = useState(query.get('status') ?? '');
  const [customerId, setCustomerId] = useState(query.get('customerId') ?? '');
  const [from, setFrom] = useState(query.get('from') ?? '');
  const [to, setTo] = useState(query.get('to') ?? '');
  const applied = {
    status: query.get('status') ?? '',
    customerId: query.get('customerId') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
    cursor: query.get('cursor') ?? '',
  };
  const list = useResource(
    () =>
      get('/v0.13/transactions', {
        query: {
          limit: 100,
          status: applied.status || undefined,
          customerId: applied.customerId || undefined,
          cursor: applied.cursor || undefined,
        },
      }),
    [applied.status, applied.customerId, applied.cursor],
  );
  // The API filters by status and customer; the dates (the viewer's days) are applied to what it answered.
  const inRange = (t: Transaction) =>
    (!applied.from || new Date(t.createdAt) >= new Date(`${applied.from}T00:00:00`)) &&
    (!applied.to || new Date(t.createdAt) < new Date(new Date(`${applied.to}T00:00:00`).getTime() + 86_400_000));
  return (
    <section aria-labelledby="transactions-title">
      <h2 id="transactions-title">Transactions</h2>
      <Filters applied={Object.values(applied).some(Boolean)}>
        <form
          class="filters"
          aria-label="Filter transactions"
          onSubmit={(e) => {
            e.preventDefault();
            navigateWithFilters('/transactions', { status, customerId, from, to });
          }}
        >
          <div class="grid">
            <label>
              Status
              <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
                <option value="">any</option>
                {STATUSES.map((s) => (
                  <option value={s}>{label(s)}</option>
                ))}
              </select>
            </label>
            <label>
              Customer id
              <input
                name="customerId"
                placeholder="cst_…"
                value={customerId}
                onInput={(e) => setCustomerId(e.currentTarget.value)}
              />
            </label>
            <label>
              From
              <input type="date" name="from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
            </label>
            <label>
              To
              <input type="date" name="to" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
            </label>
          </div>
          <button type="submit">Filter</button>
        </form>
      </Filters>
      <Loaded resource={list} label="transactions">
        {(page) => {
          const rows = page.data.filter(inRange);
          return (
            <>
              {rows.length === 0 ? <Empty>No transactions match.</Empty> : <TransactionTable rows={rows} />}
              <Pager page={page} />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

/** Transactions as a table, read as cards on a phone (app.css: table.cards). */
export function TransactionTable({ rows }: { rows: Transaction[] }) {
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Transactions">
      <table class="striped cards">
        <thead>
          <tr>
            <th scope="col">Transaction</th>
            <th scope="col">Status</th>
            <th scope="col">Amount</th>
            <th scope="col">Customer</th>
            <th scope="col">To</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.id}>
              <td data-label="Transaction">
                <Ref href={`#/transactions/${t.id}`} id={t.id}>
                  <span title={t.sourceToDestination}>{label(t.sourceToDestination)}</span>
                </Ref>
              </td>
              <td data-label="Status">
                <Status status={t.status} sub={t.subStatus} />
              </td>
              <td data-label="Amount">
                <Amount amount={t.pricing.source.amountGross} asset={t.pricing.source.asset} />
              </td>
              <td data-label="Customer">
                <CustomerRef id={t.customerId} />
              </td>
              <td data-label="To">
                <Instrument side={t.destination} customerId={t.customerId} transaction={t} />
              </td>
              <td data-label="Created">
                <Time iso={t.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
