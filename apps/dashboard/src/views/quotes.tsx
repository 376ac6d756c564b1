// Quotes: the API has no list of quotes (a quote is read by id), so the view lists the quotes of the newest
// transactions (every transaction made from a quote names it), and opens any quote by id. A quote that a
// transaction accepted no longer changes, so each is read once for the page.
import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigate, routeQuery, useResource } from '../hooks';
import { CustomerRef, Label, Ref, ShortId } from '../ids';
import { Instrument } from '../instrument';
import { label } from '../labels';
import { Amount, Empty, Loaded, Pager, Status, Time } from '../ui';

type Quote = Schemas['QuoteResponse'];
const accepted = new Map<string, Promise<Quote>>();

function readQuote(id: string): Promise<Quote> {
  let read = accepted.get(id);
  if (!read) {
    read = get('/v0.13/quotes/{id}', { params: { id } });
    accepted.set(id, read);
    read.catch(() => accepted.delete(id));
  }
  return read;
}

export function Quotes({ id }: { id?: string }) {
  const [text, setText] = useState(id ?? '');
  return (
    <section aria-labelledby="quotes-title">
      <h2 id="quotes-title">Quotes</h2>
      <form
        role="search"
        aria-label="Find a quote"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/quotes/${encodeURIComponent(text.trim())}`);
        }}
      >
        <label for="quote-id">Open a quote by id</label>
        <fieldset role="group">
          <input
            id="quote-id"
            name="id"
            placeholder="qt_…"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            required
          />
          <button type="submit">Open</button>
        </fieldset>
      </form>
      {id ? <QuoteDetail id={id} /> : <QuoteList />}
    </section>
  );
}

function QuoteList() {
  const cursor = routeQuery().get('cursor') ?? '';
  const list = useResource(async () => {
    const page = await get('/v0.13/transactions', { query: { limit: 50, cursor: cursor || undefined } });
    const ids = page.data.filter((t) => t.precursor.type === 'quote').map((t) => t.precursor.id);
    return { page, quotes: await Promise.all(ids.map(readQuote)) };
  }, [cursor]);
  return (
    <>
      <p>The quotes of the newest transactions. A quote no transaction accepted is opened by its id.</p>
      <Loaded resource={list} label="quotes">
        {({ page, quotes }) => (
          <>
            {quotes.length === 0 ? (
              <Empty>No transaction was made from a quote yet.</Empty>
            ) : (
              <QuoteTable quotes={quotes} />
            )}
            <Pager page={page} />
          </>
        )}
      </Loaded>
    </>
  );
}

function QuoteTable({ quotes }: { quotes: Quote[] }) {
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Quotes">
      <table class="striped cards">
        <thead>
          <tr>
            <th scope="col">Quote</th>
            <th scope="col">Status</th>
            <th scope="col">Customer</th>
            <th scope="col">Pays</th>
            <th scope="col">Receives</th>
            <th scope="col">Transaction</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {quotes.map((q) => (
            <tr key={q.id}>
              <td data-label="Quote">
                <Ref href={`#/quotes/${q.id}`} id={q.id}>
                  <span title={q.sourceToDestination}>{label(q.sourceToDestination)}</span>
                </Ref>
              </td>
              <td data-label="Status">
                <Status status={q.status} />
              </td>
              <td data-label="Customer">
                <CustomerRef id={q.customerId} />
              </td>
              <td data-label="Pays">
                <Amount amount={q.pricing.source.amountGross} asset={q.pricing.source.asset} />
              </td>
              <td data-label="Receives">
                <Amount amount={q.pricing.destination.amountNet} asset={q.pricing.destination.asset} />
              </td>
              <td data-label="Transaction">
                {q.transactionId ? (
                  <Ref href={`#/transactions/${q.transactionId}`} id={q.transactionId}>
                    Open
                  </Ref>
                ) : (
                  '—'
                )}
              </td>
              <td data-label="Created">
                <Time iso={q.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function QuoteDetail({ id }: { id: string }) {
  const quote = useResource(() => get('/v0.13/quotes/{id}', { params: { id } }), [id]);
  return (
    <article aria-labelledby="quote-title">
      <h3 id="quote-title">
        Quote <ShortId id={id} />
      </h3>
      <Loaded resource={quote} label="the quote">
        {(q) => (
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Status status={q.status} />
            </dd>
            <dt>Kind</dt>
            <dd>
              <Label value={q.sourceToDestination} copy />
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerRef id={q.customerId} />
            </dd>
            <dt>From</dt>
            <dd>
              <Amount amount={q.pricing.source.amountGross} asset={q.pricing.source.asset} />,{' '}
              <Instrument side={q.source} customerId={q.customerId} />
            </dd>
            <dt>To</dt>
            <dd>
              <Amount amount={q.pricing.destination.amountNet} asset={q.pricing.destination.asset} />,{' '}
              <Instrument side={q.destination} customerId={q.customerId} />
            </dd>
            <dt>Fees</dt>
            <dd>
              <Amount amount={q.pricing.source.feesDeducted.total} asset={q.pricing.source.asset} />
            </dd>
            <dt>Rate</dt>
            <dd>
              {q.pricing.exchangeRate} ({q.pricing.pair})
            </dd>
            <dt>Expires</dt>
            <dd>
              <Time iso={q.expiresAt} />
            </dd>
            <dt>Transaction</dt>
            <dd>
              {q.transactionId ? (
                <Ref href={`#/transactions/${q.transactionId}`} id={q.transactionId}>
                  Open the transaction
                </Ref>
              ) : (
                '—'
              )}
            </dd>
          </dl>
        )}
      </Loaded>
    </article>
  );
}
