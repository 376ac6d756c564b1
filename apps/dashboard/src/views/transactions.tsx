// Transactions: the list with its filters, and a transaction's page: its status timeline from the
// events, its legs with their rails' references, and its pricing.
import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigate, routeQuery, useResource } from '../hooks';
import { Amount, Empty, IdLink, Loaded, Pager, Status, Time } from '../ui';

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
      <form
        class="filters"
        aria-label="Filter transactions"
        onSubmit={(e) => {
          e.preventDefault();
          const params = new URLSearchParams(
            Object.entries({ status, customerId: customerId.trim(), from, to }).filter(([, v]) => v),
          );
          navigate(`/transactions${params.size ? `?${params}` : ''}`);
        }}
      >
        <div class="grid">
          <label>
            Status
            <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">any</option>
              {STATUSES.map((s) => (
                <option value={s}>{s}</option>
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

export function TransactionTable({ rows }: { rows: Transaction[] }) {
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
      <table class="striped">
        <thead>
          <tr>
            <th scope="col">Transaction</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Amount</th>
            <th scope="col">Customer</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.id}>
              <td>
                <IdLink id={t.id} href={`#/transactions/${t.id}`} />
              </td>
              <td>{t.sourceToDestination}</td>
              <td>
                <Status status={t.status} sub={t.subStatus} />
              </td>
              <td>
                <Amount amount={t.pricing.source.amountGross} asset={t.pricing.source.asset} />
              </td>
              <td>
                <IdLink id={t.customerId} href={`#/customers/${t.customerId}`} />
              </td>
              <td>
                <Time iso={t.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface StatusEvent {
  id: string;
  occurredAt: string;
  createdAt: string;
  previousStatus?: string | null;
  data: { status?: string; subStatus?: string | null };
}

export function TransactionDetail({ id }: { id: string }) {
  const transaction = useResource(() => get('/v0.13/transactions/{id}', { params: { id } }), [id]);
  const timeline = useResource(
    () => get('/v0.13/events', { query: { resourceId: id, type: 'transaction.statusChanged', limit: 100 } }),
    [id],
  );
  return (
    <section aria-labelledby="transaction-title">
      <h2 id="transaction-title">
        Transaction <code>{id}</code>
      </h2>
      <Loaded resource={transaction} label="the transaction">
        {(t) => (
          <>
            <dl class="facts">
              <dt>Status</dt>
              <dd data-testid="transaction-status">
                <Status status={t.status} sub={t.subStatus} />
              </dd>
              <dt>Kind</dt>
              <dd>{t.sourceToDestination}</dd>
              <dt>Customer</dt>
              <dd>
                <IdLink id={t.customerId} href={`#/customers/${t.customerId}`} />
              </dd>
              <dt>Made from</dt>
              <dd>
                {t.precursor.type} <code>{t.precursor.id}</code>
              </dd>
              <dt>Created</dt>
              <dd>
                <Time iso={t.createdAt} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time iso={t.updatedAt} />
              </dd>
              {t.hold && (
                <>
                  <dt>Hold</dt>
                  <dd>
                    {t.hold.code}: {t.hold.message}{' '}
                    {t.hold.deadline && (
                      <>
                        (until <Time iso={t.hold.deadline} />)
                      </>
                    )}
                  </dd>
                </>
              )}
              {t.error && (
                <>
                  <dt>Error</dt>
                  <dd>
                    <code>{t.error.code}</code> {t.error.message}
                    {t.error.recovery ? ` (recovery: ${t.error.recovery})` : ''}
                  </dd>
                </>
              )}
            </dl>
            <h3>Pricing</h3>
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Side</th>
                    <th scope="col">Gross</th>
                    <th scope="col">Fees</th>
                    <th scope="col">Net</th>
                  </tr>
                </thead>
                <tbody>
                  {(['source', 'destination'] as const).map((side) => {
                    const p = t.pricing[side];
                    return (
                      <tr key={side}>
                        <th scope="row">{side}</th>
                        <td>
                          <Amount amount={p.amountGross} asset={p.asset} />
                        </td>
                        <td>
                          <Amount amount={p.feesDeducted.total} asset={p.asset} />
                        </td>
                        <td>
                          <Amount amount={p.amountNet} asset={p.asset} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <p>
              Rate {t.pricing.exchangeRate} ({t.pricing.pair}), effective {t.pricing.effectiveRate}
            </p>
            <h3>Legs</h3>
            {t.legs.length === 0 ? <Empty>No leg has started.</Empty> : <Legs legs={t.legs} />}
          </>
        )}
      </Loaded>
      <h3>Status timeline</h3>
      <Loaded resource={timeline} label="the status timeline">
        {(page) => {
          const events = [...(page.data as unknown as StatusEvent[])].reverse();
          return events.length === 0 ? (
            <Empty>No status change recorded yet.</Empty>
          ) : (
            <ol class="timeline" aria-label="Status changes, oldest first">
              {events.map((e) => (
                <li key={e.id}>
                  <Status status={e.data.status ?? '?'} sub={e.data.subStatus} />{' '}
                  <Time iso={e.occurredAt ?? e.createdAt} />
                  {e.previousStatus ? <small> from {e.previousStatus}</small> : null}
                </li>
              ))}
            </ol>
          );
        }}
      </Loaded>
    </section>
  );
}

function Legs({ legs }: { legs: Transaction['legs'] }) {
  const references = (l: Transaction['legs'][number]) =>
    (
      [
        ['tx hash', l.txHash],
        ['IMAD', l.imad],
        ['UETR', l.uetr],
        ['end-to-end id', l.endToEndId],
        ['instruction', l.instructionId],
        ['pickup code', l.pickupCode],
      ] as Array<[string, string | null | undefined]>
    ).filter(([, v]) => v);
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
      <table>
        <thead>
          <tr>
            <th scope="col">Leg</th>
            <th scope="col">Rail</th>
            <th scope="col">Amount</th>
            <th scope="col">Status</th>
            <th scope="col">References</th>
            <th scope="col">Initiated</th>
            <th scope="col">Settled</th>
          </tr>
        </thead>
        <tbody>
          {legs.map((l) => (
            <tr key={l.id}>
              <td>
                {l.kind} <code>{l.id}</code>
              </td>
              <td>
                {l.rail} ({l.network})
              </td>
              <td>
                <Amount amount={l.amount} asset={l.asset} />
              </td>
              <td>
                <Status status={l.status} />
                {l.failure && (
                  <small>
                    {' '}
                    <code>{l.failure.code}</code> {l.failure.message}
                  </small>
                )}
              </td>
              <td>
                {references(l).length === 0
                  ? '—'
                  : references(l).map(([name, value]) => (
                      <div key={name}>
                        {name}: <code>{value}</code>
                      </div>
                    ))}
              </td>
              <td>
                <Time iso={l.initiatedAt} />
              </td>
              <td>
                <Time iso={l.settledAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
