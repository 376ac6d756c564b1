// A deliberately broken build, and nothing else: it exists only to prove that the fault run's checker sees what
// a broken platform does (checker.e2e-spec.ts), by breaking the platform's code rather than the data the checker
// reads. The platform never loads it; the spec preloads it, after the preloads of `npm start`:
//
//   MM_CHAOS_SABOTAGE=skip-event node -r ./tools/register.js -r ./tools/chaos/sabotage.ts apps/platform/src/main.ts
//
// It replaces one method of a class's prototype before Nest makes any instance: the application later gets the
// same module from the require cache, so the instance it makes has the broken method.
//   skip-event  the webhooks' fan-out takes every 5th partner event as done without recording or delivering it,
//               as a log reader that lost its place would (the checker: events-mismatch, a transaction whose
//               last status change was skipped being announced in a state it has left; the Events API misses
//               the skipped events too, so they are no webhook-missing);
//   pay-twice   a transaction's pull from its source wallet debits the wallet a second time, under a posting id
//               of its own so that the ledger's once-per-posting guard lets it through (the checker:
//               balance-mismatch, ledger-imbalance).
// reflect-metadata first, as main.ts has it: the classes' decorators record their constructors' types with it.
import 'reflect-metadata';
import { dec } from '@mm/platform/money';
// The services' own classes, which a tool otherwise never reaches: breaking them is this module's one purpose.
/* eslint-disable @nx/enforce-module-boundaries */
import { WalletsService } from '@mm/accounts/application';
import { WebhookFanOut } from '@mm/webhooks/application';
/* eslint-enable @nx/enforce-module-boundaries */

const SKIP_EVERY = 5;
const sabotage = process.env.MM_CHAOS_SABOTAGE;

if (sabotage === 'skip-event') {
  const onPartnerEvent = WebhookFanOut.prototype.onPartnerEvent;
  let handed = 0;
  WebhookFanOut.prototype.onPartnerEvent = function (this: WebhookFanOut, event) {
    // Resolving is what tells the log reader the event is handled: its checkpoint moves past it.
    return ++handed % SKIP_EVERY === 0 ? Promise.resolve() : onPartnerEvent.call(this, event);
  };
} else if (sabotage === 'pay-twice') {
  const pullFunds = WalletsService.prototype.pullFunds;
  WalletsService.prototype.pullFunds = async function (this: WalletsService, projectId, request) {
    const pulled = await pullFunds.call(this, projectId, request);
    // Only when the wallet still holds it, so that the transaction goes ahead and the money is simply gone.
    if (dec(pulled.balance).gte(request.amount))
      await pullFunds.call(this, projectId, { ...request, transactionId: `${request.transactionId}:again` });
    return pulled;
  };
} else {
  throw new Error(`MM_CHAOS_SABOTAGE must be skip-event or pay-twice, not ${JSON.stringify(sabotage)}`);
}
