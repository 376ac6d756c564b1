// Cash-ins: the newest, each with its customer by name, its amount, where the cash is paid in and the wallet
// it becomes USDC in; a cash-in's page with the same and its transaction, linked.
import { get, type Schemas } from '../api';
import { routeQuery, useResource } from '../hooks';
import { CustomerRef, Ref, ShortId } from '../ids';
import { Amount, Empty, Loaded, Pager, Status, Time } from '../ui';

type CashIn = Schemas['CashInResponse'];

function Wallet({ c }: { c: CashIn }) {
  const wallet = (c.destination as { wallet?: { id?: string } }).wallet;
  return (
    <Ref href={wallet?.id ? `#/customers/${c.customerId}?wallet=${wallet.id}` : undefined} id={wallet?.id}>
      {c.destination.asset.toUpperCase()} on {c.destination.network}
    </Ref>
  );
}

export function CashIns() {
  const cursor = routeQuery().get('cursor') ?? '';
  const list = useResource(
    () => get('/v0.13/cash-ins', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
  );
  return (
    <section aria-labelledby="cash-ins-title">
      <h2 id="cash-ins-title">Cash-ins</h2>
      <Loaded resource={list} label="cash-ins">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No cash-in yet.</Empty>
          ) : (
            <>
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Cash-ins">
                <table class="striped cards">
                  <thead>
                    <tr>
                      <th scope="col">Cash-in</th>
                      <th scope="col">Status</th>
                      <th scope="col">Indicated</th>
                      <th scope="col">Customer</th>
                      <th scope="col">Into</th>
                      <th scope="col">Transaction</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((c) => (
                      <tr key={c.id}>
                        <td data-label="Cash-in">
                          <Ref href={`#/cash-ins/${c.id}`} id={c.id}>
                            At {c.location.name}
                          </Ref>
                        </td>
                        <td data-label="Status">
                          <Status status={c.status} sub={c.subStatus} />
                        </td>
                        <td data-label="Indicated">
                          <Amount amount={c.source.indicatedAmount} asset={c.source.asset} />
                        </td>
                        <td data-label="Customer">
                          <CustomerRef id={c.customerId} />
                        </td>
                        <td data-label="Into">
                          <Wallet c={c} />
                        </td>
                        <td data-label="Transaction">
                          {c.transactionId ? (
                            <Ref href={`#/transactions/${c.transactionId}`} id={c.transactionId}>
                              Open
                            </Ref>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td data-label="Created">
                          <Time iso={c.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

export function CashInDetail({ id }: { id: string }) {
  const cashIn = useResource(() => get('/v0.13/cash-ins/{id}', { params: { id } }), [id]);
  return (
    <section aria-labelledby="cash-in-title">
      <h2 id="cash-in-title">
        Cash-in <ShortId id={id} />
      </h2>
      <Loaded resource={cashIn} label="the cash-in">
        {(c) => (
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Status status={c.status} sub={c.subStatus} />
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerRef id={c.customerId} />
            </dd>
            <dt>Paid in at</dt>
            <dd>
              {c.location.name} ({c.location.locationProvider})
            </dd>
            <dt>Indicated</dt>
            <dd>
              <Amount amount={c.source.indicatedAmount} asset={c.source.asset} />
            </dd>
            <dt>Into</dt>
            <dd>
              <Amount amount={c.destination.amountNet} asset={c.destination.asset} />, <Wallet c={c} />
            </dd>
            <dt>Transaction</dt>
            <dd>
              {c.transactionId ? (
                <Ref href={`#/transactions/${c.transactionId}`} id={c.transactionId}>
                  Open the transaction
                </Ref>
              ) : (
                '—'
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={c.createdAt} />
            </dd>
          </dl>
        )}
      </Loaded>
    </section>
  );
}
