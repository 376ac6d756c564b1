// A transaction's page: who and where (its customer by name, where the money came from and went, its
// quote or other origin, each linked), its status timeline from the events, its pricing, and its legs with
// their rails' references.
import { get, type Schemas } from '../api';
import { useResource } from '../hooks';
import { CustomerRef, Label, ShortId } from '../ids';
import { Instrument, Precursor } from '../instrument';
import { label } from '../labels';
import { Amount, Empty, Loaded, Status, Time } from '../ui';

type Transaction = Schemas['TransactionResponse'];

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
        Transaction <ShortId id={id} />
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
              <dd>
                <Label value={t.sourceToDestination} copy />
              </dd>
              <dt>Customer</dt>
              <dd>
                <CustomerRef id={t.customerId} />
              </dd>
              <dt>From</dt>
              <dd data-testid="transaction-source">
                <Instrument side={t.source} customerId={t.customerId} transaction={t} />
              </dd>
              <dt>To</dt>
              <dd data-testid="transaction-destination">
                <Instrument side={t.destination} customerId={t.customerId} transaction={t} />
              </dd>
              <dt>Made from</dt>
              <dd>
                <Precursor precursor={t.precursor} />
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
                    <Label value={t.hold.code} />: {t.hold.message}{' '}
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
                    <Label value={t.error.code} copy /> {t.error.message}
                    {t.error.recovery ? ` (recovery: ${label(t.error.recovery).toLowerCase()})` : ''}
                  </dd>
                </>
              )}
            </dl>
            <h3>Pricing</h3>
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Pricing">
              <table class="cards">
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
                        <th scope="row">{side === 'source' ? 'Source' : 'Destination'}</th>
                        <td data-label="Gross">
                          <Amount amount={p.amountGross} asset={p.asset} />
                        </td>
                        <td data-label="Fees">
                          <Amount amount={p.feesDeducted.total} asset={p.asset} />
                        </td>
                        <td data-label="Net">
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
                  {e.previousStatus ? <small> from {label(e.previousStatus)}</small> : null}
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
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Legs">
      <table class="cards">
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
              <td data-label="Leg">
                <span title={l.kind}>{label(l.kind)}</span> <ShortId id={l.id} />
              </td>
              <td data-label="Rail">
                <span title={`${l.rail} (${l.network})`}>{label(l.rail)}</span>
              </td>
              <td data-label="Amount">
                <Amount amount={l.amount} asset={l.asset} />
              </td>
              <td data-label="Status">
                <Status status={l.status} />
                {l.failure && (
                  <small>
                    {' '}
                    <Label value={l.failure.code} />: {l.failure.message}
                  </small>
                )}
              </td>
              <td data-label="References">
                {references(l).length === 0
                  ? '—'
                  : references(l).map(([name, value]) => (
                      <div key={name}>
                        {name}: <code class="reference">{value}</code>
                      </div>
                    ))}
              </td>
              <td data-label="Initiated">
                <Time iso={l.initiatedAt} />
              </td>
              <td data-label="Settled">
                <Time iso={l.settledAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
