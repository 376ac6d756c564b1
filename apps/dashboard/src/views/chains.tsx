// The operator's view of the chains (docs/chain.md): each usdc network, on a chain or simulated, where its
// wallets' reader stands, and, for a network on a chain, the ledger reconciled with the chain. A difference
// nothing explains, or a reader stopped at a reorganisation, is shown as an alert: money the books cannot
// account for is an operator's to explain before anything else.
import { get, type Schemas } from '../api';
import { useResource } from '../hooks';
import { Loaded } from '../ui';

/** Read again this often rather than with the other operator views: a reconciliation asks the node for every custodial address's balance. */
const CHAINS_POLL_MS = 10_000;

export function Chains() {
  const chains = useResource(() => get('/v0.13/admin/chains'), [], { live: false, pollMs: CHAINS_POLL_MS });
  return (
    <section aria-labelledby="chains-title">
      <h2 id="chains-title">Chains</h2>
      <p>Each USDC network: on a chain (its node, what is credited, the ledger against the chain) or simulated.</p>
      <Loaded resource={chains} label="chains">
        {(list) => (
          <div class="chains">
            {list.data.map((chain) => (
              <ChainCard key={chain.network} chain={chain} />
            ))}
          </div>
        )}
      </Loaded>
    </section>
  );
}

function ChainCard({ chain }: { chain: Schemas['ChainStatusResponse'] }) {
  return (
    <article aria-label={`Network ${chain.network}`}>
      <header>
        <strong>{chain.network}</strong> <span class="badge">{chain.mode === 'chain' ? 'on chain' : 'simulated'}</span>
      </header>
      {chain.mode === 'simulated' ? (
        <p>Simulated: no node, no transfers on chain; the sandbox settles its legs.</p>
      ) : (
        <>
          {chain.reorganised && (
            <div role="alert" class="problem">
              <strong>Reading stopped at a reorganisation</strong>
              <p>
                Block {chain.reorganised.block} was credited as confirmed with hash{' '}
                <code>{chain.reorganised.recordedHash}</code>; the node now has{' '}
                <code>{chain.reorganised.foundHash ?? 'no such block'}</code>.
              </p>
            </div>
          )}
          <dl class="facts">
            <dt>Chain id</dt>
            <dd>{chain.chainId}</dd>
            <dt>Treasury</dt>
            <dd>
              <code>{chain.treasuryAddress}</code>
            </dd>
            <dt>Head</dt>
            <dd>{chain.head ?? '—'}</dd>
            <dt>Credited through</dt>
            <dd>
              {chain.confirmedThrough ?? '—'} ({chain.confirmations} confirmations)
            </dd>
          </dl>
          <Reconciliation network={chain.network} />
        </>
      )}
    </article>
  );
}

function Reconciliation({ network }: { network: string }) {
  const figures = useResource(() => get('/v0.13/admin/reconciliation', { query: { network } }), [network], {
    live: false,
    pollMs: CHAINS_POLL_MS,
  });
  return (
    <Loaded resource={figures} label={`the reconciliation of ${network}`}>
      {(r) => (
        <>
          {Number(r.unexplainedDifference) !== 0 && (
            <div role="alert" class="problem">
              <strong>The books do not match the chain</strong>
              <p>
                {r.unexplainedDifference} USDC on {network} that no ledger entry explains (at block {r.atBlock}).
              </p>
            </div>
          )}
          <table aria-label={`Reconciliation of ${network}`}>
            <tbody>
              <Row label="Owed to customers" value={r.ledgerOwed} />
              <Row label="Operator's float" value={r.operatorFloat} />
              <Row label="In flight" value={r.inFlight} />
              <Row label="Held on chain" value={r.chainHeld} />
              <Row label="Unexplained difference" value={r.unexplainedDifference} />
            </tbody>
          </table>
          <small>
            At block {r.atBlock}, credited through {r.confirmedThrough}.
          </small>
        </>
      )}
    </Loaded>
  );
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td class="amount">{value} USDC</td>
    </tr>
  );
}
