// The page: sign-in, then the partner's or the operator's view, one route per view after the # (ids and
// filters only). Every view reads through api.ts and refreshes with live.ts.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { startLive } from './live';
import { routeQuery, useRoute } from './hooks';
import { signOut, useSession, type Session } from './session';
import { PartnerApiKeys } from './views/api-keys';
import { Approvals } from './views/approvals';
import { AuditLog } from './views/audit';
import { Chains } from './views/chains';
import { CashInDetail, CashIns } from './views/cash-ins';
import { CustomerDetail, CustomersList } from './views/customers';
import { ExternalAccountDetail, ExternalAccounts } from './views/external-accounts';
import { HeldQueue } from './views/held-queue';
import { ProjectDetail, Projects } from './views/operator';
import { DepositAddressDetail, VirtualAccountDetail } from './views/origins';
import { Quotes } from './views/quotes';
import { RequestLogDetail, RequestLogs } from './views/request-logs';
import { ClockControl, Sandbox } from './views/sandbox';
import { SearchBox, SearchResults } from './views/search';
import { CollectSignIn, SignIn } from './views/signin';
import { TransactionDetail } from './views/transaction-detail';
import { TransactionsList } from './views/transactions';
import { DeliveryDetail, EventsList, WebhookDetail, WebhooksList } from './views/webhooks';

const PARTNER_NAV = [
  ['transactions', 'Transactions'],
  ['customers', 'Customers'],
  ['quotes', 'Quotes'],
  ['cash-ins', 'Cash-ins'],
  ['external-accounts', 'External accounts'],
  ['webhooks', 'Webhooks'],
  ['events', 'Events'],
  ['api-keys', 'API keys'],
  ['request-logs', 'Request log'],
  ['sandbox', 'Sandbox'],
] as const;
const OPERATOR_NAV = [
  ['held', 'Held transactions'],
  ['approvals', 'Approvals'],
  ['projects', 'Projects'],
  ['chains', 'Chains'],
  ['audit', 'Audit log'],
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
      return <Quotes id={id} />;
    case 'cash-ins':
      return id ? <CashInDetail id={id} /> : <CashIns />;
    case 'external-accounts':
      return id ? <ExternalAccountDetail id={id} /> : <ExternalAccounts />;
    // Reached from a transaction made from one (no list of their own in the navigation).
    case 'deposit-addresses':
      return id ? <DepositAddressDetail id={id} /> : <NotFound />;
    case 'virtual-accounts':
      return id ? <VirtualAccountDetail id={id} /> : <NotFound />;
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
    case 'api-keys':
      return <PartnerApiKeys />;
    case 'request-logs':
      return id ? <RequestLogDetail id={id} /> : <RequestLogs />;
    case 'sandbox':
      return <Sandbox />;
    // The header's search box, for what is not an id (search.tsx).
    case 'search':
      return <SearchResults />;
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
    case 'audit':
      return <AuditLog />;
    case 'approvals':
      return <Approvals />;
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
  // On a phone the sections fold behind a menu button (app.css); a move to another view folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    setMenuOpen(false);
    const title = current === 'search' ? 'Search' : nav.find(([path]) => path === current)?.[1];
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
              {session.kind === 'operator' && session.name && (
                <small class="who">
                  {' '}
                  {session.name} ({session.role})
                </small>
              )}
            </li>
            <li class="menu-toggle">
              <button
                type="button"
                class="secondary outline"
                aria-expanded={menuOpen}
                aria-controls="sections"
                onClick={() => setMenuOpen(!menuOpen)}
              >
                Menu
              </button>
            </li>
          </ul>
          <ul class={`sections${menuOpen ? ' open' : ''}`} id="sections">
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
        {session.kind === 'partner' && <SearchBox route={route} />}
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
  if (session) return <Shell session={session} route={route} />;
  if (route[0] === 'signed-in') return <CollectSignIn />;
  const failed = route[0] === 'sign-in-failed' ? routeQuery().get('reason') : null;
  return <SignIn notice={failed ? `Sign-in failed: ${failed}` : expiredReason} />;
}
