// The page: sign-in, then the partner's or the operator's view, one route per view after the # (ids and
// filters only). Every view reads through api.ts and refreshes with live.ts.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { startLive } from './live';
import { useRoute } from './hooks';
import { signOut, useSession, type Session } from './session';
import { Chains } from './views/chains';
import { CashIns, CustomerDetail, CustomersList, ExternalAccounts, QuoteLookup } from './views/customers';
import { HeldQueue, ProjectDetail, Projects } from './views/operator';
import { ClockControl, Sandbox } from './views/sandbox';
import { SignIn } from './views/signin';
import { TransactionDetail, TransactionsList } from './views/transactions';
import { DeliveryDetail, EventsList, WebhookDetail, WebhooksList } from './views/webhooks';

const PARTNER_NAV = [
  ['transactions', 'Transactions'],
  ['customers', 'Customers'],
  ['quotes', 'Quotes'],
  ['cash-ins', 'Cash-ins'],
  ['external-accounts', 'External accounts'],
  ['webhooks', 'Webhooks'],
  ['events', 'Events'],
  ['sandbox', 'Sandbox'],
] as const;
const OPERATOR_NAV = [
  ['held', 'Held transactions'],
  ['projects', 'Projects'],
  ['chains', 'Chains'],
] as const;

function partnerView(route: string[]): ComponentChildren {
  const [section, id, sub, subId] = route;
  switch (section) {
    case undefined:
    case 'transactions':
      return id ? <TransactionDetail id={id} /> : <TransactionsList />;
    case 'customers':
      return id ? <CustomerDetail id={id} /> : <CustomersList />;
    case 'quotes':
      return <QuoteLookup id={id} />;
    case 'cash-ins':
      return <CashIns />;
    case 'external-accounts':
      return <ExternalAccounts />;
    case 'webhooks':
      return id && sub === 'deliveries' && subId ? (
        <DeliveryDetail webhookId={id} deliveryId={subId} />
      ) : id ? (
        <WebhookDetail id={id} />
      ) : (
        <WebhooksList />
      );
    case 'events':
      return <EventsList />;
    case 'sandbox':
      return <Sandbox />;
    default:
      return <NotFound />;
  }
}

function operatorView(route: string[]): ComponentChildren {
  const [section, id] = route;
  switch (section) {
    case undefined:
    case 'held':
      return <HeldQueue />;
    case 'projects':
      return id ? <ProjectDetail id={id} /> : <Projects />;
    case 'chains':
      return <Chains />;
    default:
      return <NotFound />;
  }
}

function NotFound() {
  return (
    <section>
      <h2>Not found</h2>
      <p>
        There is no such page. <a href="#/">Start again</a>.
      </p>
    </section>
  );
}

function Shell({ session, route }: { session: Session; route: string[] }) {
  const nav = session.kind === 'partner' ? PARTNER_NAV : OPERATOR_NAV;
  const current = route[0] ?? nav[0][0];
  const first = useRef(true);
  useEffect(() => {
    const title = nav.find(([path]) => path === current)?.[1];
    document.title = `${title ? `${title} · ` : ''}Money-movement dashboard`;
    // After a move to another view, focus goes to its content (for keyboard and screen-reader users); on the
    // page's first load it stays at the top, where the skip link is.
    if (!first.current) document.getElementById('content')?.focus({ preventScroll: true });
    first.current = false;
  }, [route.join('/')]);
  return (
    <>
      <a
        class="skip"
        href="#content"
        onClick={(e) => (e.preventDefault(), document.getElementById('content')?.focus())}
      >
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Main">
          <ul>
            <li>
              <strong>{session.kind === 'partner' ? 'Partner' : 'Operator'}</strong>
              {session.kind === 'partner' && <small class="who"> {session.apiKey}</small>}
            </li>
          </ul>
          <ul class="sections">
            {nav.map(([path, label]) => (
              <li key={path}>
                <a href={`#/${path}`} aria-current={current === path ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
            <li>
              <button type="button" class="secondary outline" onClick={() => (signOut(), (location.hash = '#/'))}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
        {session.kind === 'partner' && <ClockControl />}
      </header>
      <main id="content" class="container" tabIndex={-1}>
        {session.kind === 'partner' ? partnerView(route) : operatorView(route)}
      </main>
    </>
  );
}

export function App() {
  const { session, expiredReason } = useSession();
  const route = useRoute();
  useEffect(() => startLive(), []);
  return session ? <Shell session={session} route={route} /> : <SignIn notice={expiredReason} />;
}
